"""Who a process runs as: the ``user`` of a start or run request resolved against the sandbox's
own /etc/passwd and /etc/group, as Popen's arguments and the variables a login would set."""

from __future__ import annotations

import grp
import os
import pwd
from typing import Any

from sandbox_runtime.contract import UserSpec, invalid


def identity_of(user: UserSpec | None) -> dict[str, Any]:
    """Popen's ``user``/``group``/``extra_groups`` and the HOME/USER variables for ``user``."""
    if user is None:
        return {}
    gid = user.gid
    if user.group is not None:
        try:
            gid = grp.getgrnam(user.group).gr_gid
        except KeyError:
            raise invalid(f"unknown group {user.group!r} (no such entry in /etc/group)") from None
    try:
        pw = pwd.getpwnam(user.name) if user.name is not None else pwd.getpwuid(user.uid)  # type: ignore[arg-type]
    except KeyError:
        if user.name is not None:
            raise invalid(f"unknown user {user.name!r} (no such entry in /etc/passwd)") from None
        pw = None  # a bare uid runs without a passwd entry, in group gid (else the uid)
    uid = pw.pw_uid if pw else user.uid
    if gid is None:
        gid = pw.pw_gid if pw else uid
    kwargs: dict[str, Any] = {"user": uid, "group": gid, "env": {}}
    if pw:
        kwargs["env"] = {"HOME": pw.pw_dir, "USER": pw.pw_name, "LOGNAME": pw.pw_name}
    if os.geteuid() == 0:  # the daemon's own supplementary groups are not handed on
        kwargs["extra_groups"] = os.getgrouplist(pw.pw_name, gid) if pw else []
    return kwargs
