"""The sandbox backend over the docker SDK: ``DockerBackend`` (``containers``).

``containers`` starts hardened sandbox containers with the runtime daemon injected and removes
them; ``snapshots`` captures and restores them (workspace copies, commits, CRIU checkpoints);
``self_test`` decides whether memory snapshots work here; ``mounts`` attaches and detaches host
directories in a running container; ``names`` holds the labels and paths they share. The use
cases reach this only through the ``SandboxBackend`` protocol of ``pipelines.core``, so their
rules are tested with a fake backend and only the tests marked ``docker`` need an engine.
"""
