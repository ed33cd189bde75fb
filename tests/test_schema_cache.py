"""linter.model.schema_cache: models completed from the cache behave exactly as built ones, and every
way the cache can be unusable (missing, stale, corrupt, foreign, not writable, off) falls back to
pydantic's build without an error."""

from __future__ import annotations

import enum
import inspect
import json
import os
import re
import subprocess
import sys
from itertools import count
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from linter.model import schema_cache
from linter.model.config import Duration, Size
from linter.model.schema_cache import cache_dir, complete_models

ROOT = Path(__file__).resolve().parents[1]
_tags = count()


class Level(str, enum.Enum):
    """How loud."""

    LOW = "low"
    HIGH = "high"


def _models(name: str) -> tuple[type[BaseModel], type[BaseModel]]:
    """Fresh deferred models, published in this module under ``name`` so that pickle finds them
    (a second call with the same name stands for the same models in the next run)."""

    class Inner(BaseModel):
        model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

        wait: Duration | None = None
        size: Size = 0
        level: Level | None = None

    class Outer(BaseModel):
        model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True, populate_by_name=True)

        name: str = Field(min_length=1, alias="the-name")
        inner: Inner | None = None
        inners: list[Inner] = Field(default_factory=list)
        by_name: dict[str, Inner] = Field(default_factory=dict)

        @model_validator(mode="after")
        def _named(self) -> Outer:
            if self.name == "forbidden":
                raise ValueError("that name is taken")
            return self

    for cls, suffix in ((Inner, "Inner"), (Outer, "Outer")):
        cls.__name__ = cls.__qualname__ = f"{name}{suffix}"
        globals()[cls.__qualname__] = cls
    validator = Outer.__pydantic_decorators__.model_validators["_named"].func
    getattr(validator, "__func__", validator).__qualname__ = f"{name}Outer._named"
    return Inner, Outer


SAMPLES: list[Any] = [None, 0, -1, 1.5, True, "x", "7d", "1GiB", "", [], {}, "low", "forbidden", {"wait": "1s"}, [{"size": "1KiB"}]]


def _behaviour(model: type[BaseModel]) -> list[Any]:
    """What the model does with a spread of inputs: every field with every sample, unknown keys,
    aliases, plus its JSON schema and signature."""
    out: list[Any] = [model.model_json_schema(), str(inspect.signature(model))]
    inputs: list[Any] = [{}, {"bogus": 1}, "not a mapping"]
    for field, info in model.model_fields.items():
        inputs += [{field: s} for s in SAMPLES]
        if info.alias:
            inputs += [{info.alias: s} for s in SAMPLES]
    for data in inputs:
        try:
            value = model.model_validate(data)
        except ValidationError as exc:
            out.append(json.dumps(exc.errors(include_url=False), default=str, sort_keys=True))
        else:
            out.append((value.model_dump_json(), repr(value), value.model_dump(by_alias=True)))
    return out


@pytest.fixture
def cache(tmp_path: Path) -> str:
    return str(tmp_path / "cache")


def test_missing_cache_builds_and_stores_then_next_run_loads_the_same_models(cache: str) -> None:
    name = f"Cached{next(_tags)}"
    built = _models(name)
    assert complete_models(*built, cache=cache) == "stored"
    assert len(os.listdir(cache)) == 1
    again = _models(name)
    assert complete_models(*again, cache=cache) == "cached"
    for a, b in zip(built, again):
        assert _behaviour(a) == _behaviour(b)
    assert again[1].model_validate({"the-name": "n", "inner": {"wait": "2m"}}).inner.wait == 120 * 10**9  # type: ignore[attr-defined]


def test_complete_models_leaves_complete_models_alone(cache: str) -> None:
    models = _models(f"Done{next(_tags)}")
    complete_models(*models, cache=cache)
    validator = models[1].__pydantic_validator__
    assert complete_models(*models, cache=cache) == "built"
    assert models[1].__pydantic_validator__ is validator


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda data: b"garbage", id="garbage"),
        pytest.param(lambda data: b"", id="empty"),
        pytest.param(lambda data: data[: len(data) // 2], id="truncated"),
        pytest.param(lambda data: data[:-40] + bytes(40), id="corrupt-payload"),
        pytest.param(lambda data: data.replace(b"jsops-model-cache 1", b"jsops-model-cache 0", 1), id="other-format"),
        pytest.param(lambda data: re.sub(rb"^(.*\n)[0-9a-f]{64}", rb"\g<1>" + b"0" * 64, data), id="stale-digest"),
        pytest.param(lambda data: re.sub(rb"^(.*\n.*\n)[^\n]*", rb"\g<1>builtins no.such.module", data), id="unknown-module"),
    ],
)
def test_unusable_cache_file_is_rebuilt_and_replaced(cache: str, damage: Any) -> None:
    name = f"Damaged{next(_tags)}"
    reference = _models(name)
    assert complete_models(*reference, cache=cache) == "stored"
    (path,) = Path(cache).iterdir()
    path.write_bytes(damage(path.read_bytes()))
    models = _models(name)
    assert complete_models(*models, cache=cache) == "stored"  # rebuilt, and the file written anew
    for a, b in zip(reference, models):
        assert _behaviour(a) == _behaviour(b)
    assert complete_models(*_models(name), cache=cache) == "cached"


def test_a_changed_model_source_is_a_stale_cache(cache: str, monkeypatch: pytest.MonkeyPatch) -> None:
    name = f"Edited{next(_tags)}"
    complete_models(*_models(name), cache=cache)
    monkeypatch.setattr(schema_cache, "_JSOPS_VERSION", "0.0.0-other")  # stands for any part of the key
    assert complete_models(*_models(name), cache=cache) == "stored"


def test_a_cached_schema_of_another_class_is_not_used(cache: str) -> None:
    name = f"Swapped{next(_tags)}"
    complete_models(*_models(name), cache=cache)
    inner, outer = _models(name)
    globals()[f"{name}Outer"] = inner  # the name now finds another class than the one completed
    assert complete_models(inner, outer, cache=cache) == "built"  # and pickle cannot store it either
    assert outer.model_validate({"the-name": "n"}).name == "n"  # type: ignore[attr-defined]


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="giving a file away needs root")
def test_a_cache_file_of_another_user_is_not_read(cache: str) -> None:
    name = f"Foreign{next(_tags)}"
    complete_models(*_models(name), cache=cache)
    (path,) = Path(cache).iterdir()
    os.chown(path, 4242, -1)
    assert complete_models(*_models(name), cache=cache) == "stored"


def test_unwritable_cache_dir_builds_without_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    models = _models(f"Unwritable{next(_tags)}")
    assert complete_models(*models, cache=str(blocker / "cache")) == "built"
    assert models[1].model_validate({"the-name": "n"}).name == "n"  # type: ignore[attr-defined]


def test_no_cache_and_uncacheable_models_are_built(cache: str) -> None:
    models = _models(f"Off{next(_tags)}")
    assert complete_models(*models, cache=None) == "built"

    class Local(BaseModel):  # a class pickle cannot name
        model_config = ConfigDict(defer_build=True)
        x: int = 0

    class Eager(BaseModel):
        x: int = 0

    assert complete_models(Local, cache=cache) == "built"
    assert complete_models(Eager, cache=cache) == "built"
    assert Local(x=1).x == 1 and not os.path.exists(cache)


def test_cache_dir_follows_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("JSOPS_NO_CACHE", raising=False)
    monkeypatch.setenv("JSOPS_CACHE_DIR", str(tmp_path / "here"))
    assert cache_dir() == str(tmp_path / "here")
    monkeypatch.delenv("JSOPS_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir() == str(tmp_path / "xdg" / "jsops")
    monkeypatch.setenv("JSOPS_NO_CACHE", "1")
    assert cache_dir() is None


# The real models, in fresh processes: cold (stored), warm (cached) and without a cache (built)
# must be indistinguishable, down to the core schema (the records' pydantic models included).
_FINGERPRINT = """
import inspect, json, re, sys
from pydantic import BaseModel
import linter.cli, linter.config, linter.model.buckets
from linter.engine import discover_rules
from linter.model import profiles, records, schema_cache
discover_rules()
for record in records.declared_records():  # the records' pydantic models are made when first needed
    records.pydantic_model(record)
schema_cache.complete_models(*profiles._MODELS)
sys.path.insert(0, {tests!r})
from test_schema_cache import _behaviour

def subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from subclasses(sub)

def normal(text):
    return re.sub(r"0x[0-9a-f]+", "0x", re.sub(r":[0-9]+'", ":ID'", text))

out = {{}}
for model in sorted(set(subclasses(BaseModel)), key=lambda m: (m.__module__, m.__qualname__)):
    if model.__module__.split(".")[0] in ("linter", "rules") and model.__pydantic_complete__:
        out[f"{{model.__module__}}.{{model.__qualname__}}"] = [normal(repr(model.__pydantic_core_schema__)), normal(repr(_behaviour(model)))]
print(json.dumps({{"outcomes": schema_cache.outcomes(), "models": out}}))
"""


def _fingerprint(env: dict[str, str]) -> dict[str, Any]:
    code = _FINGERPRINT.format(tests=str(ROOT / "tests"))
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=env, check=True)
    result: dict[str, Any] = json.loads(run.stdout)
    return result


def test_real_models_from_the_cache_are_the_built_ones(tmp_path: Path) -> None:
    env = {**os.environ, "JSOPS_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": str(ROOT)}
    env.pop("JSOPS_NO_CACHE", None)
    cold, warm = _fingerprint(env), _fingerprint(env)
    built = _fingerprint({**env, "JSOPS_NO_CACHE": "1"})
    groups = ("linter.model.config", "linter.model.target", "linter.model.profiles")
    assert {g: cold["outcomes"][g] for g in groups} == dict.fromkeys(groups, "stored")
    assert set(warm["outcomes"].values()) == {"cached"}
    assert set(built["outcomes"].values()) == {"built"}
    assert "linter.model.config.StreamConfig" in built["models"] and "linter.model.target.Target" in built["models"]
    assert cold["models"] == built["models"]
    assert warm["models"] == built["models"]
