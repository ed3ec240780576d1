"""The sandbox backend over the docker SDK.

``containers`` starts hardened sandbox containers with the runtime daemon injected, commits and
removes them; ``mounts`` attaches and detaches host directories in a running container. The use
cases reach this only through the ``SandboxBackend`` protocol of ``pipelines.core``, so their rules
are tested with a fake backend and only the tests marked ``docker`` need an engine.
"""
