"""`grade-class --k8s`: the class as Kubernetes Jobs, written (not run here: no cluster is lent).

Two manifests, JSON (which kubectl reads as it reads YAML): an Indexed Job whose pod K-1 runs
`grade-class --shard K/N` (JOB_COMPLETION_INDEX is 0-based), N pods, at most M at once, and a
collect Job to apply once it completes. Kubernetes has no afterok: the instructor waits with
`kubectl wait` (the printed commands). The shards build the harness under grade-class's lock in
the shared volume (a PersistentVolumeClaim mounted at /class, ReadWriteMany), so no harness Job
is needed. The image holds this checkout (the same commit everywhere) at /workbook.

check() compares a manifest with the fields of the batch/v1 Job API that these use: a small
hand-written check (no OpenAPI schema of Kubernetes is available offline here), strict about
unknown keys so that a misspelt field fails rather than being dropped by the API server.
"""
from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

MOUNT = "/class"
WORKBOOK = "/workbook"
DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
JOB_SPEC = {"activeDeadlineSeconds", "backoffLimit", "backoffLimitPerIndex", "completionMode", "completions",
            "manualSelector", "maxFailedIndexes", "parallelism", "podFailurePolicy", "podReplacementPolicy",
            "selector", "successPolicy", "suspend", "template", "ttlSecondsAfterFinished", "managedBy"}
POD_SPEC_USED = {"restartPolicy", "containers", "volumes"}
CONTAINER_USED = {"name", "image", "command", "args", "workingDir", "env", "resources", "volumeMounts"}


def _job(name, command, image, claim, cpus, extra_spec=None):
    return {
        "apiVersion": "batch/v1", "kind": "Job",
        "metadata": {"name": name, "labels": {"app.kubernetes.io/name": "halo-grade-class"}},
        "spec": {**(extra_spec or {}), "backoffLimit": 2, "template": {"spec": {
            "restartPolicy": "Never",
            "containers": [{
                "name": "grade", "image": image, "workingDir": WORKBOOK,
                "command": ["/bin/sh", "-c", command],
                "resources": {"requests": {"cpu": str(cpus)}, "limits": {"cpu": str(cpus)}},
                "volumeMounts": [{"name": "class", "mountPath": MOUNT}],
            }],
            "volumes": [{"name": "class", "persistentVolumeClaim": {"claimName": claim}}],
        }}},
    }


def manifests(assignment, grade_args, shards, parallel, cpus, image, claim):
    """(shard Job, collect Job): `grade_args` as seen inside the pod (paths under /class)."""
    base = f"./workbook grade-class {' '.join(grade_args)}"
    name = f"halo-{assignment}".lower()[:50]
    indexed = {"completionMode": "Indexed", "completions": shards, "parallelism": parallel}
    shard_job = _job(f"{name}-shards", f'exec {base} --shard "$((JOB_COMPLETION_INDEX + 1))/{shards}"',
                     image, claim, cpus, indexed)
    collect_job = _job(f"{name}-collect", f"exec {base} --collect", image, claim, 1)
    return shard_job, collect_job


def check(job):
    """Problems (strings) of a manifest against the batch/v1 Job fields it uses."""
    problems = []
    if job.get("apiVersion") != "batch/v1" or job.get("kind") != "Job":
        problems.append("apiVersion/kind should be batch/v1 Job")
    name = (job.get("metadata") or {}).get("name", "")
    if not DNS_LABEL.match(name) or len(name) > 63:
        problems.append(f"metadata.name {name!r} is not a DNS label of at most 63 characters")
    spec = job.get("spec") or {}
    problems += [f"spec.{k} is not a field of JobSpec" for k in sorted(set(spec) - JOB_SPEC)]
    mode = spec.get("completionMode", "NonIndexed")
    if mode not in ("NonIndexed", "Indexed"):
        problems.append(f"spec.completionMode {mode!r} is neither NonIndexed nor Indexed")
    for key, low, high in (("completions", 1, None), ("parallelism", 0, 10**5), ("backoffLimit", 0, None)):
        value = spec.get(key)
        if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < low
                                  or (high is not None and value > high)):
            problems.append(f"spec.{key} {value!r} should be a whole number from {low}"
                            f"{f' to {high}' if high else ''}")
    if mode == "Indexed" and spec.get("completions") is None:
        problems.append("an Indexed Job needs spec.completions")
    pod = ((spec.get("template") or {}).get("spec")) or {}
    problems += [f"spec.template.spec.{k} is not a field this check knows" for k in sorted(set(pod) - POD_SPEC_USED)]
    if pod.get("restartPolicy") not in ("Never", "OnFailure"):
        problems.append("a Job's pods need restartPolicy Never or OnFailure")
    volumes = {v.get("name") for v in pod.get("volumes") or []}
    containers = pod.get("containers") or []
    if not containers:
        problems.append("spec.template.spec.containers is empty")
    for c in containers:
        where = f"container {c.get('name')!r}"
        problems += [f"{where}: {k} is not a field this check knows" for k in sorted(set(c) - CONTAINER_USED)]
        if not DNS_LABEL.match(c.get("name") or ""):
            problems.append(f"{where}: the name is not a DNS label")
        if not isinstance(c.get("image"), str) or not c["image"]:
            problems.append(f"{where}: no image")
        if not all(isinstance(a, str) for a in (c.get("command") or []) + (c.get("args") or [])):
            problems.append(f"{where}: command and args should be lists of strings")
        for m in c.get("volumeMounts") or []:
            if m.get("name") not in volumes:
                problems.append(f"{where}: mounts {m.get('name')!r}, which is not among the pod's volumes")
            if not str(m.get("mountPath", "")).startswith("/"):
                problems.append(f"{where}: mountPath {m.get('mountPath')!r} is not absolute")
        for kind in ("requests", "limits"):
            for resource, value in ((c.get("resources") or {}).get(kind) or {}).items():
                if not isinstance(value, str):
                    problems.append(f"{where}: resources.{kind}.{resource} should be a quantity string")
    return problems


def write(root, out, assignment, options):
    """Writes OUT/k8s/{shards,collect}.json (after checking them); returns their paths."""
    head = subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"], capture_output=True,
                          text=True).stdout.strip() or "latest"
    image = options.get("image") or f"halo-workbook:{head}"
    grade_args = [f"{MOUNT}/submissions", "--out", f"{MOUNT}/out"]
    if options.get("assignment"):
        grade_args += ["--assignment", options["assignment"]]
    if options.get("course"):  # course.toml holds the secret: it lies on the volume, not in the image
        grade_args += ["--course", f"{MOUNT}/course.toml"]
    jobs = manifests(assignment, grade_args, options["shards"], options["throttle"], options["cpus"], image,
                     options.get("claim") or "halo-class")
    problems = [p for job in jobs for p in check(job)]
    if problems:
        raise ValueError("the manifests do not match the Job API: " + "; ".join(problems))
    folder = Path(out) / "k8s"
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for kind, job in zip(("shards", "collect"), jobs):
        path = folder / f"{kind}.json"
        path.write_text(json.dumps(job, indent=2) + "\n")
        paths.append(path)
    return paths, jobs
