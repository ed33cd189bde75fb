"""Running the profile job with ``spark-submit`` on a cluster (no pyspark import: only its location).

``jsops profile TELEMETRY -o OUT --master URL --print-submit-command`` writes a bundle (the ``profiler``
package as a zip for ``--py-files`` and a three-line main script) and prints the one command that
submits it, with ``SPARK_HOME`` set: the ``spark-submit`` a pip install of pyspark puts in the venv
looks for its Spark home with the system ``python3`` (which has no pyspark) unless ``SPARK_HOME`` or
``PYSPARK_DRIVER_PYTHON`` is set, and fails. The job runs no Python on executors (Spark SQL only), so
the zip serves the driver: in client mode (the default) it is the submitting machine's Python, which
also needs pydantic and ``linter`` (the ``spark`` extra: ``pip install '.[spark]'`` in a clone); see docs/profiler.md.
"""

from __future__ import annotations

import importlib.util
import shlex
import sys
import zipfile
from collections.abc import Mapping, Sequence
from pathlib import Path

from jsops.linter import install_hint
from jsops.profiler.errors import ProfilerError

__all__ = ["Bundle", "SubmitError", "build_bundle", "spark_home", "submit_command", "render_command"]

_PACKAGE = Path(__file__).resolve().parent
_MAIN = "import sys\n\nfrom jsops.profiler.job import main\n\nsys.exit(main())\n"


class SubmitError(ProfilerError):
    """pyspark is not installed (no spark-submit to point at) or the bundle cannot be written."""


class Bundle:
    """The files spark-submit is given: ``zip`` for ``--py-files`` and ``main`` as the application."""

    def __init__(self, zip_path: Path, main: Path) -> None:
        self.zip = zip_path
        self.main = main


def spark_home() -> Path:
    """The Spark home of the installed pyspark package (its ``bin/spark-submit``, ``jars/``)."""
    spec = importlib.util.find_spec("pyspark")
    if spec is None or not spec.submodule_search_locations:
        raise SubmitError(f"pyspark is not installed: {install_hint('spark')}")
    return Path(next(iter(spec.submodule_search_locations)))


def build_bundle(directory: Path) -> Bundle:
    """Write ``jsops-profile.zip`` (every module of the ``profiler`` package) and ``jsops_profile_main.py``
    into ``directory``; the zip's entries have a fixed timestamp, so the same code gives the same zip."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
        zip_path = directory / "jsops-profile.zip"
        tmp = zip_path.with_name(zip_path.name + ".tmp")
        with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
            for f in sorted(_PACKAGE.iterdir()):
                if f.suffix == ".py" or f.name == "py.typed":
                    info = zipfile.ZipInfo(f"jsops/profiler/{f.name}", date_time=(2020, 1, 1, 0, 0, 0))
                    info.compress_type = zipfile.ZIP_DEFLATED
                    z.writestr(info, f.read_bytes())
        tmp.replace(zip_path)
        main = directory / "jsops_profile_main.py"
        main.write_text(_MAIN)
    except OSError as exc:
        raise SubmitError(f"cannot write the spark-submit bundle in {directory}: {exc.strerror or exc}") from None
    return Bundle(zip_path, main)


def submit_command(
    bundle: Bundle,
    job_args: Sequence[str],
    *,
    master: str | None = None,
    driver_memory: str | None = None,
    conf: Mapping[str, str] | None = None,
    python: str | None = None,
) -> tuple[dict[str, str], list[str]]:
    """The environment and the argv of ``spark-submit`` running the job with ``job_args``.

    ``SPARK_HOME`` is the pyspark package's; ``PYSPARK_DRIVER_PYTHON`` the driver's Python (default:
    this one). ``PYSPARK_PYTHON`` is left alone: executors start no Python worker.
    """
    home = spark_home()
    env = {"SPARK_HOME": str(home), "PYSPARK_DRIVER_PYTHON": python or sys.executable}
    argv = [str(home / "bin" / "spark-submit")]
    if master:
        argv += ["--master", master]
    if driver_memory:
        argv += ["--driver-memory", driver_memory]
    for key, value in (conf or {}).items():
        argv += ["--conf", f"{key}={value}"]
    argv += ["--py-files", str(bundle.zip), str(bundle.main), *job_args]
    return env, argv


def render_command(env: Mapping[str, str], argv: Sequence[str]) -> str:
    """One shell line: ``VAR=value ... spark-submit ...``, quoted for a POSIX shell."""
    return " ".join([*(f"{k}={shlex.quote(v)}" for k, v in env.items()), *(shlex.quote(a) for a in argv)])
