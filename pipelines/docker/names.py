"""The names docklake gives things on the Docker engine and inside a sandbox's container: labels,
networks, the snapshot image repository, the paths the runtime daemon is injected at and the
command that boots it.

In one module so the backend's modules (launching, snapshots, the self-test), the bench and the
tests that look containers up agree on them.
"""

from __future__ import annotations

LABEL_SANDBOX = "docklake.sandbox"
LABEL_OWNER = "docklake.owner"  # which installation (catalog) made it: several may share an engine
LABEL_NAMESPACE = "docklake.namespace"
LABEL_GENERATION = "docklake.generation"
LABEL_SNAPSHOT = "docklake.snapshot"
SNAPSHOT_REPO = "docklake/snapshot"
NET_ISOLATED = "docklake-sandboxes"
NET_INTERNET = "docklake-sandboxes-internet"
RUNTIME_MOUNT = "/opt/docklake"
WORKSPACE = "/workspace"
TOKEN_PATH = "/run/docklake/token"
CHECKPOINT = "docklake"  # a checkpoint's name inside the container it is restored into
# python3 -c … runs the daemon from the read-only mount without putting it on the user's path
BOOT = (f"import sys, runpy; sys.path.insert(0, {RUNTIME_MOUNT!r}); "
        "runpy.run_module('sandbox_runtime', run_name='__main__', alter_sys=True)")

# the writable places of a read-only-root sandbox besides its workspace (tmpfs in the container),
# which a filesystem snapshot keeps as a tar beside its workspace copy
SCRATCH = ("tmp", "dev/shm")
