"""A real one-node Slurm cluster in a temporary folder, for `./workbook check` (slurm_check.py).

Debian's slurm-wlm and munge are installed when missing (as root or with sudo, the way the
toolchain is); munged, slurmctld and slurmd are then started from files in `folder` only (key,
sockets, state, logs, a slurm.conf on free ports), never /etc, so an existing cluster on the
machine is left alone. Every daemon is stopped by its own pid (stop()).
"""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from pathlib import Path

from ..core import pydeps

PACKAGES = ("slurm-wlm", "munge")
DAEMONS = ("munged", "slurmctld", "slurmd")


class SlurmError(Exception):
    """The cluster cannot start (the message says why)."""


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _node_line():
    """`slurmd -C`'s NodeName line: the machine as slurmd will see it (a node configured with
    more CPUs or memory than it has is drained at once)."""
    try:
        p = subprocess.run(["slurmd", "-C"], capture_output=True, text=True)
    except OSError as e:
        raise SlurmError(f"slurmd cannot run: {e}") from None
    line = next((ln for ln in p.stdout.splitlines() if ln.startswith("NodeName=")), None)
    if p.returncode != 0 or line is None:
        raise SlurmError(f"slurmd -C cannot describe this node: {p.stderr.strip() or p.stdout.strip()}")
    # RealMemory as measured; the grade jobs ask for no memory, so none is reserved.
    return line, line.split()[0].split("=", 1)[1]


def config(folder, node_line, node, ctld_port, slurmd_port):
    """The text of slurm.conf for one node whose every path lies in `folder`."""
    f = Path(folder)
    return "\n".join([
        "ClusterName=halo-check",
        f"SlurmctldHost={node}(127.0.0.1)",
        "SlurmUser=root", "SlurmdUser=root",
        f"SlurmctldPort={ctld_port}", f"SlurmdPort={slurmd_port}",
        "AuthType=auth/munge", f"AuthInfo=socket={f / 'munge.socket'}",
        "CredType=cred/munge",
        f"StateSaveLocation={f / 'state'}", f"SlurmdSpoolDir={f / 'spool'}",
        f"SlurmctldPidFile={f / 'slurmctld.pid'}", f"SlurmdPidFile={f / 'slurmd.pid'}",
        f"SlurmctldLogFile={f / 'slurmctld.log'}", f"SlurmdLogFile={f / 'slurmd.log'}",
        # No cgroups: the check must run in containers without a writable cgroup tree.
        "ProctrackType=proctrack/linuxproc", "TaskPlugin=task/affinity",
        "SelectType=select/cons_tres", "SelectTypeParameters=CR_CPU",
        "SchedulerType=sched/backfill", "MpiDefault=none", "ReturnToService=2",
        "AccountingStorageType=accounting_storage/none", "JobCompType=jobcomp/none",
        "JobAcctGatherType=jobacct_gather/none",
        "SlurmctldTimeout=30", "SlurmdTimeout=30", "InactiveLimit=0", "MinJobAge=3600", "KillWait=5",
        f"{node_line} State=UNKNOWN",
        "PartitionName=check Nodes=ALL Default=YES MaxTime=INFINITE State=UP",
    ]) + "\n"


class Cluster:
    def __init__(self, folder):
        self.folder = Path(folder).resolve()
        self.pids = {}
        self.env = dict(os.environ, SLURM_CONF=str(self.folder / "slurm.conf"))

    def start(self, wait_s=60):
        if os.geteuid() != 0:
            raise SlurmError("the check starts munged, slurmctld and slurmd as root: run it as root")
        if not pydeps.ensure_apt(PACKAGES, "a one-node Slurm cluster for the check"):
            raise SlurmError(f"Debian's {' and '.join(PACKAGES)} are not installed and cannot be")
        f = self.folder
        for sub in ("state", "spool"):
            (f / sub).mkdir(parents=True, exist_ok=True)
        os.chmod(f, 0o755)  # munged refuses a key or socket folder others may write
        key = f / "munge.key"
        key.write_bytes(os.urandom(1024))
        os.chmod(key, 0o600)
        self._daemon("munged", ["munged", f"--key-file={key}", f"--socket={f / 'munge.socket'}",
                                f"--pid-file={f / 'munged.pid'}", f"--log-file={f / 'munged.log'}",
                                f"--seed-file={f / 'munged.seed'}", "--force"], f / "munged.pid", wait_s)
        node_line, node = _node_line()
        self.node = node
        (f / "slurm.conf").write_text(config(f, node_line, node, _free_port(), _free_port()))
        conf = str(f / "slurm.conf")
        self._daemon("slurmctld", ["slurmctld", "-f", conf, "-i"], f / "slurmctld.pid", wait_s)
        self._daemon("slurmd", ["slurmd", "-f", conf, "-N", node], f / "slurmd.pid", wait_s)
        self._wait_idle(wait_s)
        return self

    def _daemon(self, name, argv, pid_file, wait_s):
        """Starts a forking daemon and reads its pid from its pid file (the pid we must stop)."""
        pid_file.unlink(missing_ok=True)
        try:
            p = subprocess.run(argv, env=self.env, capture_output=True, text=True)
        except OSError as e:
            raise SlurmError(f"{name} cannot run: {e}") from None
        if p.returncode != 0:
            raise SlurmError(f"{name} did not start (exit status {p.returncode}): "
                             f"{(p.stderr or p.stdout).strip()[-800:]}{self._log_tail(name)}")
        for _ in range(int(wait_s * 10)):
            if pid_file.is_file() and pid_file.read_text().strip().isdigit():
                self.pids[name] = int(pid_file.read_text().strip())
                return
            time.sleep(0.1)
        raise SlurmError(f"{name} wrote no pid file {pid_file} in {wait_s} s{self._log_tail(name)}")

    def _log_tail(self, name):
        log = self.folder / f"{name}.log"
        return f"\n{name}.log ends:\n{log.read_text(errors='replace')[-1500:]}" if log.is_file() else ""

    def _wait_idle(self, wait_s):
        """Until the node takes jobs (sinfo says idle), or SlurmError with the logs."""
        state = ""
        for _ in range(int(wait_s * 2)):
            p = subprocess.run(["sinfo", "-h", "-N", "-o", "%T"], env=self.env, capture_output=True, text=True)
            state = p.stdout.strip() or p.stderr.strip()
            if state in ("idle", "mixed", "allocated"):
                return
            time.sleep(0.5)
        raise SlurmError(f"the node is not taking jobs (sinfo: {state!r}){self._log_tail('slurmctld')}"
                         f"{self._log_tail('slurmd')}")

    def stop(self):
        """Stops every daemon this cluster started, by its pid, newest first; waits for each."""
        for name in reversed(DAEMONS):
            pid = self.pids.pop(name, None)
            if pid is None:
                continue
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                continue
            for _ in range(300):
                try:
                    os.kill(pid, 0)
                except ProcessLookupError:
                    break
                time.sleep(0.1)
            else:
                os.kill(pid, signal.SIGKILL)
