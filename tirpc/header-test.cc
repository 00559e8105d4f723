/* <rpcrdma/tirpc.h> compiles on its own, twice. */
#include <rpcrdma/tirpc.h>
#include <rpcrdma/tirpc.h>
int main(void) { return 0; }
