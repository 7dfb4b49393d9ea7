"""How many test processes to run: the CPUs this process may use, limited by a container's CPU
quota (cgroup v2 ``cpu.max``, or v1 ``cpu.cfs_quota_us``) and by 4. A container often sees
every CPU of its host while its quota allows two; a process per visible CPU would then
oversubscribe it and make the browser tests' waits run out. ``TOKENDESK_TEST_WORKERS`` overrides.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

MOST = 4


CGROUP = Path("/sys/fs/cgroup")


def quota(root: Path = CGROUP) -> float | None:
    """The container's CPU quota in CPUs (None: no quota)."""
    try:
        quota, period = (root / "cpu.max").read_text().split()[:2]
        return None if quota == "max" else int(quota) / int(period)
    except (OSError, ValueError):
        pass
    try:
        quota = int((root / "cpu" / "cpu.cfs_quota_us").read_text())
        period = int((root / "cpu" / "cpu.cfs_period_us").read_text())
        return None if quota <= 0 else quota / period
    except (OSError, ValueError):
        return None


def workers(root: Path = CGROUP) -> int:
    stated = os.environ.get("TOKENDESK_TEST_WORKERS", "")
    if stated.isdigit():
        return int(stated)
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:
        cpus = os.cpu_count() or 1
    allowed = quota(root)
    if allowed is not None:
        cpus = min(cpus, max(1, math.floor(allowed)))
    return max(1, min(cpus, MOST))


if __name__ == "__main__":
    print(workers())
