# SPDX-License-Identifier: BSD-2-Clause
"""rpcrdma-xdrgen: from an rpcgen .x file to C for librpcrdma's native API."""
