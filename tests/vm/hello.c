/* vm-hello: the harness's own check that a program of the build tree runs
 * in the guest with the build tree's librpcrdma.so (found through meson's
 * $ORIGIN-relative RUNPATH, copied by tests/vm/run --bin). */
#include <rpcrdma/rpcrdma.h>
#include <stdio.h>

int main(void)
{
	printf("vm-hello: librpcrdma %s\n", rpcrdma_version_string());
	return 0;
}
