#!/usr/bin/env python3
"""``make release``: the release's artefacts and their checksums, in one folder (default ``dist/release``).

* the sdist and the wheel, built offline with the build backend the project names (``.ci/jsops_build.py``,
  which stamps the commit);
* the Helm chart packaged as ``helm package`` lays it out (``jsops-controller-VERSION.tgz``: every file of
  the chart under ``jsops-controller/``), made with tarfile since helm is not needed for that;
* the controller image from ``docs/deploy/Containerfile`` as an OCI archive, where buildah, podman or a
  docker with a running daemon is found (skipped with a message otherwise, or with ``--no-image``);
* ``SHA256SUMS`` over all of them (``sha256sum -c SHA256SUMS`` checks them).

The version is the one declared in ``linter/_version.py``; ``--tag vX.Y.Z`` (the release workflow) refuses
a tag that is not that version. Standard library only, plus setuptools for the build.
"""

from __future__ import annotations

import argparse
import ast
import gzip
import hashlib
import io
import os
import re
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHART = ROOT / "docs" / "deploy" / "helm" / "jsops-controller"
CONTAINERFILE = ROOT / "docs" / "deploy" / "Containerfile"


class ReleaseError(Exception):
    """A release that cannot be made as asked."""


def declared_version(root: Path = ROOT) -> str:
    """``__version__`` of ``linter/_version.py``, read without importing it."""
    tree = ast.parse((root / "linter" / "_version.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__version__" for t in node.targets
        ):
            if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
                return node.value.value
    raise ReleaseError("linter/_version.py declares no __version__ string")


def _commit() -> str:
    out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=False)
    return out.stdout.strip() if out.returncode == 0 else os.environ.get("JSOPS_BUILD_COMMIT", "")


def _epoch() -> int:
    """The artefacts' file times: SOURCE_DATE_EPOCH, else the commit's time (reproducible), else now."""
    if os.environ.get("SOURCE_DATE_EPOCH", "").isdigit():
        return int(os.environ["SOURCE_DATE_EPOCH"])
    out = subprocess.run(["git", "log", "-1", "--format=%ct"], cwd=ROOT, capture_output=True, text=True, check=False)
    return int(out.stdout.strip()) if out.returncode == 0 and out.stdout.strip().isdigit() else 0


def build_python(out: Path, version: str) -> list[Path]:
    """The sdist and the wheel, through the project's build backend in a child process (PEP 517 hooks,
    no isolation: the running Python's setuptools, nothing downloaded)."""
    names = []
    for hook in ("build_sdist", "build_wheel"):  # one process each: setuptools keeps state between its builds
        code = f"import sys; sys.path.insert(0, '.ci'); import jsops_build as b; print('built:', b.{hook}(sys.argv[1]))"
        proc = subprocess.run(
            [sys.executable, "-c", code, str(out)], cwd=ROOT, capture_output=True, text=True, check=False
        )
        if proc.returncode != 0:
            raise ReleaseError(f"the Python build ({hook}) failed:\n{proc.stderr[-4000:]}")
        names += [line.split()[1] for line in proc.stdout.splitlines() if line.startswith("built: ")][-1:]
    want = [f"jsops-{version}.tar.gz", f"jsops-{version}-py3-none-any.whl"]
    if names != want:
        raise ReleaseError(f"the build made {names}, expected {want}")
    return [out / n for n in names]


def _chart_field(text: str, key: str) -> str | None:
    m = re.search(rf"^{key}:\s*[\"']?([^\"'#\s]+)", text, re.M)
    return m.group(1) if m else None


def _helmignore(chart: Path) -> list[str]:
    path = chart / ".helmignore"
    if not path.exists():
        return []
    return [
        line.strip()
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    ]


def package_chart(out: Path, version: str, chart: Path = CHART) -> Path:
    """``NAME-VERSION.tgz`` laid out as ``helm package`` does: the chart's files under ``NAME/`` (minus
    what ``.helmignore`` names, by plain file-name pattern), regular files only, owned by root."""
    import fnmatch

    meta = (chart / "Chart.yaml").read_text(encoding="utf-8")
    name = _chart_field(meta, "name")
    if _chart_field(meta, "apiVersion") != "v2" or name != chart.name:
        raise ReleaseError(f"{chart / 'Chart.yaml'}: expected apiVersion v2 and name {chart.name!r}")
    for key in ("version", "appVersion"):
        if _chart_field(meta, key) != version:
            raise ReleaseError(
                f"{chart / 'Chart.yaml'}: {key} is {_chart_field(meta, key)!r}, the release is {version}"
            )
    ignored = _helmignore(chart)
    epoch = _epoch()
    target = out / f"{name}-{version}.tgz"
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for path in sorted(p for p in chart.rglob("*") if p.is_file()):
            rel = path.relative_to(chart).as_posix()
            if any(fnmatch.fnmatch(rel, pat) or fnmatch.fnmatch(path.name, pat) for pat in ignored):
                continue
            info = tarfile.TarInfo(f"{name}/{rel}")
            data = path.read_bytes()
            info.size, info.mode, info.mtime = len(data), 0o644, epoch
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            tar.addfile(info, io.BytesIO(data))
    with open(target, "wb") as fh, gzip.GzipFile(filename="", mode="wb", fileobj=fh, mtime=epoch) as gz:
        gz.write(raw.getvalue())
    return target


def _container_tool() -> list[str] | None:
    for tool in ("buildah", "podman"):
        if shutil.which(tool):
            return [tool]
    if shutil.which("docker") and subprocess.run(["docker", "info"], capture_output=True, check=False).returncode == 0:
        return ["docker"]
    return None


def build_image(out: Path, version: str, commit: str, base: str | None) -> Path | None:
    """The image as an OCI archive, or None (said on stderr) when no container tool can build it here."""
    tool = _container_tool()
    if tool is None:
        print(
            "release: image skipped: no buildah, podman or docker with a running daemon here (docs/kubernetes.md builds it)",
            file=sys.stderr,
        )
        return None
    tag = f"localhost/jsops:{version}"
    args = [*tool, "build", "-f", str(CONTAINERFILE), "--build-arg", f"COMMIT={commit}", "-t", tag]
    if base:
        args += ["--build-arg", f"BASE={base}"]
    if subprocess.run([*args, "."], cwd=ROOT, check=False).returncode != 0:
        raise ReleaseError(f"the image build failed ({tool[0]})")
    target = out / f"jsops-image-{version}.tar"
    save = (
        [*tool, "save", "-o", str(target), tag]
        if tool[0] == "docker"
        else [*tool, "push", tag, f"oci-archive:{target}:{tag}"]
    )
    if subprocess.run(save, check=False).returncode != 0:
        raise ReleaseError(f"saving the image failed ({tool[0]})")
    return target


def write_sums(out: Path, files: list[Path]) -> Path:
    lines = [f"{hashlib.sha256(f.read_bytes()).hexdigest()}  {f.name}\n" for f in sorted(files, key=lambda p: p.name)]
    sums = out / "SHA256SUMS"
    sums.write_text("".join(lines), encoding="ascii")
    return sums


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="release", description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument(
        "--out", type=Path, default=ROOT / "dist" / "release", help="the folder for the artefacts (emptied first)"
    )
    parser.add_argument("--no-image", action="store_true", help="skip the container image")
    parser.add_argument("--base", help="the image's BASE build argument (a Debian-based Python image)")
    parser.add_argument("--tag", help="the git tag being released: refused unless it is v<declared version>")
    parser.add_argument("--print-version", action="store_true", help="print the declared version and exit")
    args = parser.parse_args(argv)
    try:
        version = declared_version()
        if args.print_version:
            print(version)
            return 0
        if args.tag is not None and args.tag != f"v{version}":
            raise ReleaseError(f"tag {args.tag} is not the declared version v{version} (linter/_version.py)")
        out: Path = args.out.resolve()
        if out.exists():
            shutil.rmtree(out)
        out.mkdir(parents=True)
        commit = _commit()
        files = [*build_python(out, version), package_chart(out, version)]
        image = None if args.no_image else build_image(out, version, commit, args.base)
        if args.no_image:
            print("release: image skipped (--no-image)", file=sys.stderr)
        files += [image] if image else []
        sums = write_sums(out, files)
    except ReleaseError as exc:
        print(f"release: error: {exc}", file=sys.stderr)
        return 1
    print(f"release: jsops {version} (commit {commit[:12] or 'unknown'}) in {out}:")
    for f in [*files, sums]:
        print(f"  {f.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
