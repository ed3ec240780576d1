"""The ``docklake`` command.

``main`` holds the server-side commands (``serve``, ``worker``, ``deliver``, ``keys``), ``client``
the commands that talk to a running docklake (``submit``, ``datasets``, ``jobs``, ``query``) through
``remote``, the REST client, and ``batch`` the folder submitter behind ``docklake submit``.
"""
