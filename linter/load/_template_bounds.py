"""Bounds on what a template may compute: the size of every value it builds, and the time it runs.

The jinja2 sandbox stops escapes; it does not stop a template from building a huge value in a
single step (``"x" * n | center(10**9)``, ``"%0999999999d" % 1``, ``"{:>999999999}".format(1)``,
``indent(10**9)``, a ``~`` or ``+`` chain that doubles a string, ``n * n`` repeated on an
integer, ``{{ big_list_of_big_lists }}``). Here each operation that can make its result larger
than its inputs is checked *before* it runs, against the size of what it would build:

- binary operators (``+ * % **``) and ``~`` (concatenation, through the code generator);
- the filters and ``str`` methods that take a width, a count or a separator;
- ``str.format``/``format_map`` widths and ``%`` widths;
- every value printed with ``{{ }}`` (its text size is estimated without building it).

Each value is bounded on its own (:data:`MAX_VALUE_CHARS`), and a render in total
(:data:`MAX_RENDER_TOTAL`, :func:`render_budget`): every string, list or other value an operation
builds is charged to the render as it is made (a list's items that already exist count 8 each, a
pointer: ``ns.l + [s]`` charges the list, not the strings again), and the render is refused once the
charges pass the bound. What a render holds is never more than what it has built, so a loop that
keeps thousands of distinct 1 MB strings (or lists of them, nested) is refused after 64 MiB, not
after the time bound at gigabytes. The rendered text has its own bound (``MAX_RENDERED_BYTES``).

Time is bounded by a watchdog that interrupts the rendering thread (an asynchronous exception,
delivered between two Python bytecodes) once the render has run for ``max_seconds``: loops in
generated template code are Python code, and no single C-level step can run long because of the
size checks above. Imported with jinja2, only when a template is rendered.
"""

from __future__ import annotations

import ctypes
import operator
import re
import string
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from jinja2.compiler import CodeGenerator, Frame
from jinja2.exceptions import SecurityError
from jinja2.nodes import Concat

__all__ = [
    "MAX_VALUE_CHARS",
    "MAX_WIDTH",
    "MAX_POWER_BITS",
    "MAX_SEQUENCE",
    "MAX_RENDER_TOTAL",
    "RenderTimeout",
    "bounded_sandbox_class",
    "deadline",
    "render_budget",
]

MAX_SEQUENCE = 1_000_000  # items or characters a `*` may build
MAX_VALUE_CHARS = 4_000_000  # characters (or items) any one value a template builds may hold
MAX_WIDTH = 100_000  # a width or padding in a format, center, indent, ljust...
MAX_POWER_BITS = 4096  # bits of an integer result of `**` or `*`
MAX_RENDER_TOTAL = 64 * 1024 * 1024  # characters (a list item: 8) all the values one render builds may take together
_POINTER = 8


_V = TypeVar("_V")


class RenderTimeout(Exception):
    """The render ran past its time bound (raised inside the rendering thread by the watchdog)."""


def _refuse(what: str) -> SecurityError:
    return SecurityError(what)


def text_size(value: object, budget: int = MAX_VALUE_CHARS) -> int:
    """A cheap estimate of ``len(str(value))`` that stops counting past ``budget`` (shared
    references are counted each time they are printed, as ``str`` would print them)."""
    total = 0
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            total += len(v) + 2
        elif isinstance(v, (list, tuple, set, frozenset)):
            total += 2 + 2 * len(v)
            if total > budget:
                return total
            stack.extend(v)
        elif isinstance(v, dict):
            total += 2 + 4 * len(v)
            if total > budget:
                return total
            stack.extend(v.keys())
            stack.extend(v.values())
        elif isinstance(v, int) and not isinstance(v, bool):
            total += v.bit_length() // 3 + 2
        else:
            total += 8
        if total > budget:
            return total
    return total


def check_size(value: _V, what: str) -> _V:
    if text_size(value) > MAX_VALUE_CHARS:
        raise _refuse(f"{what} would build a value of more than {MAX_VALUE_CHARS} characters")
    return value


# --- the render's total -------------------------------------------------------------------------

_BUDGET = threading.local()  # .left: what the render running in this thread may still build


@contextmanager
def render_budget(total: int = MAX_RENDER_TOTAL) -> Iterator[None]:
    """Charge what the block's operations build (:func:`built`, :func:`made`) to ``total``."""
    saved = getattr(_BUDGET, "left", None)
    _BUDGET.left = total
    try:
        yield
    finally:
        _BUDGET.left = saved


def _charge(n: int, what: str) -> None:
    left = getattr(_BUDGET, "left", None)
    if left is None:
        return
    left -= n
    _BUDGET.left = left
    if left < 0:
        raise _refuse(
            f"{what}: the template has built more than {MAX_RENDER_TOTAL} characters of values in all "
            "(everything a render makes counts, also what it drops later)"
        )


def _own_size(value: object) -> int:
    """What building ``value`` itself allocated: a string's characters, a container's slots (its
    items already existed and were charged when they were made)."""
    if isinstance(value, (str, bytes)):
        return len(value)
    if isinstance(value, (list, tuple, dict, set, frozenset)):
        return _POINTER * len(value) * (2 if isinstance(value, dict) else 1)
    if isinstance(value, int):
        return value.bit_length() // 8
    return 0


def built(value: _V, what: str) -> _V:
    """``value`` was just made from existing values (``+``, ``*``, ``~``): charge its own size."""
    _charge(_own_size(value), what)
    return value


def made(value: _V, what: str) -> _V:
    """``value`` came out of a filter or a call, which may have made every item anew: bounded on
    its own (:func:`check_size`) and charged in full."""
    size = text_size(value)
    if size > MAX_VALUE_CHARS:
        raise _refuse(f"{what} would build a value of more than {MAX_VALUE_CHARS} characters")
    _charge(size, what)
    return value


def _width(n: object, what: str) -> None:
    if isinstance(n, int) and not isinstance(n, bool) and abs(n) > MAX_WIDTH:
        raise _refuse(f"{what}: a width of {n} (at most {MAX_WIDTH})")


_PERCENT = re.compile(r"%(?:\([^)]*\))?[-#0 +]*(\*|\d+)?(?:\.(\*|\d+))?[a-zA-Z%]")


def check_percent(fmt: str, args: object) -> None:
    """``fmt % args``: widths and precisions bounded, arguments of bounded size."""
    star = False
    for m in _PERCENT.finditer(fmt):
        for part in m.groups():
            if part == "*":
                star = True
            elif part:
                _width(int(part) if len(part) < 12 else MAX_WIDTH + 1, "`%` format")
    items = args if isinstance(args, tuple) else (args,)
    if star:
        for a in items:
            _width(a, "`%` format")
    check_size(items, "`%`")
    if len(fmt) * (1 + len(_PERCENT.findall(fmt))) > MAX_VALUE_CHARS:
        raise _refuse("`%` format too long")


def check_format(fmt: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    """``fmt.format(...)``: widths in the format specs bounded (nested ``{}`` widths too)."""
    try:
        parsed = list(string.Formatter().parse(fmt))
    except ValueError:
        return  # str.format raises the same error itself
    nested = False
    for _, field, spec, _ in parsed:
        if field is None or not spec:
            continue
        if "{" in spec:
            nested = True
        for digits in re.findall(r"\d+", spec):
            _width(int(digits) if len(digits) < 12 else MAX_WIDTH + 1, "format spec")
    if nested:
        for a in (*args, *kwargs.values()):
            _width(a, "format spec")
    check_size((args, kwargs), "`format`")


def _mul(left: object, right: object) -> object:
    for seq, n in ((left, right), (right, left)):
        if isinstance(seq, (str, bytes, list, tuple)) and isinstance(n, int) and len(seq) * n > MAX_SEQUENCE:
            raise _refuse(f"`*` would build a sequence of more than {MAX_SEQUENCE} items")
    if (
        isinstance(left, int)
        and isinstance(right, int)
        and abs(left).bit_length() + abs(right).bit_length() > MAX_POWER_BITS
    ):
        raise _refuse(f"`*` result too large (more than {MAX_POWER_BITS} bits)")
    return built(operator.mul(left, right), "`*`")


def _pow(left: object, right: object) -> object:
    if (
        isinstance(left, int)
        and isinstance(right, int)
        and right > 0
        and abs(left) > 1
        and abs(left).bit_length() * right > MAX_POWER_BITS
    ):
        raise _refuse(f"`**` result too large (more than {MAX_POWER_BITS} bits)")
    return built(operator.pow(left, right), "`**`")


def _add(left: object, right: object) -> object:
    if (
        isinstance(left, (str, list, tuple))
        and isinstance(right, (str, list, tuple))
        and len(left) + len(right) > MAX_VALUE_CHARS
    ):
        raise _refuse(f"`+` would build a value of more than {MAX_VALUE_CHARS} items")
    return built(operator.add(left, right), "`+`")


def _mod(left: object, right: object) -> object:
    if isinstance(left, str):
        check_percent(left, right)
        return made(operator.mod(left, right), "`%`")
    return operator.mod(left, right)


# The binary operators a template may use, each bounded where it can grow a value.
_BINOPS: dict[str, Callable[[object, object], object]] = {
    "*": _mul,
    "**": _pow,
    "+": _add,
    "%": _mod,
    "-": operator.sub,
    "/": operator.truediv,
    "//": operator.floordiv,
}


def concat(values: tuple[Any, ...]) -> str:
    """``a ~ b ~ ...``: refused before building a value past the bound."""
    if sum(text_size(v) for v in values) > MAX_VALUE_CHARS:
        raise _refuse(f"`~` would build a string of more than {MAX_VALUE_CHARS} characters")
    text: str = built("".join(map(str, values)), "`~`")
    return text


# --- filters and str methods ---------------------------------------------------------------------


def _lines(s: object) -> int:
    return str(s).count("\n") + 1


def _estimate_join(items: Iterable[object], sep: object) -> int:
    items = list(items) if not isinstance(items, (list, tuple)) else items
    return text_size(items) + len(str(sep)) * max(len(items) - 1, 0)


def _estimate_replace(s: object, old: object, new: object, count: object = None) -> int:
    s, old, new = str(s), str(old), str(new)
    n = s.count(old) if old else len(s) + 1
    if isinstance(count, int) and count >= 0:
        n = min(n, count)
    return len(s) + n * max(len(new) - len(old), 0)


def _check_tojson(value: object, indent: object) -> None:
    _width(indent, "tojson indent")
    check_size(value, "filter tojson")


# name: check(args, kwargs) -> raise when the result would be too large
_FILTER_CHECKS: dict[str, Callable[..., None]] = {
    "center": lambda value, width=80, *a, **k: _width(width, "center"),
    "indent": lambda value, width=4, *a, **k: _check_indent(value, width),
    "wordwrap": lambda value, width=79, *a, **k: _check_wordwrap(value, width, *a, **k),
    "tojson": lambda value, indent=None, *a, **k: _check_tojson(value, indent),
    "slice": lambda value, slices=1, *a, **k: _width(slices, "slice"),
    "batch": lambda value, linecount=1, *a, **k: _width(linecount, "batch"),
    "truncate": lambda value, length=255, *a, **k: _width(length, "truncate"),
    "format": lambda value, *args, **kwargs: check_percent(str(value), kwargs or args),
    "join": lambda value, d="", *a, **k: _big(_estimate_join(value, d), "join"),
    "replace": lambda s, old, new, count=None, *a, **k: _big(_estimate_replace(s, old, new, count), "replace"),
    "sum": lambda iterable, *a, **k: check_size(iterable, "sum"),
}


def _check_wordwrap(
    value: object,
    width: object = 79,
    break_long_words: object = True,
    wrapstring: object = None,
    *a: object,
    **k: object,
) -> None:
    _width(width, "wordwrap")
    wrap = k.get("wrapstring", wrapstring)
    text = str(value)
    breaks = len(text) // max(width if isinstance(width, int) else 1, 1) + text.count(" ") + 1
    _big(len(text) + breaks * (len(str(wrap)) if wrap is not None else 1), "wordwrap")


def _check_translate(s: str | bytes, table: object = None, *a: object) -> None:
    if isinstance(table, dict):
        longest = max((len(v) for v in table.values() if isinstance(v, (str, bytes))), default=1)
        _big(len(s) * max(longest, 1), "str.translate")


def _check_indent(value: object, width: object) -> None:
    per = width if isinstance(width, int) and not isinstance(width, bool) else len(str(width))
    _width(per, "indent")
    _big(_lines(value) * per + len(str(value)), "indent")


def _bounded_items(iterable: Iterable[_V], what: str) -> list[_V]:
    """An iterator's items as a list, refused as soon as their printed size passes the bound."""
    out = []
    total = 0
    for item in iterable:
        total += text_size(item)
        if total > MAX_VALUE_CHARS:
            raise _refuse(f"{what} would build a value of more than {MAX_VALUE_CHARS} characters")
        out.append(item)
    return out


# Filters that print or copy their input: bounded by its printed size.
_COPYING_FILTERS = (
    "string",
    "tojson",
    "pprint",
    "urlencode",
    "xmlattr",
    "list",
    "title",
    "upper",
    "lower",
    "capitalize",
    "trim",
    "striptags",
    "escape",
    "e",
    "forceescape",
    "urlize",
    "batch",
    "slice",
    "dictsort",
    "sort",
    "unique",
    "reverse",
    "items",
    "map",
    "select",
    "reject",
    "selectattr",
    "rejectattr",
    "groupby",
)


def _big(n: int, what: str) -> None:
    if n > MAX_VALUE_CHARS:
        raise _refuse(f"{what} would build a value of more than {MAX_VALUE_CHARS} characters")


def _bounded_filter(name: str, fn: Callable[..., Any], check: Callable[..., Any] | None) -> Callable[..., Any]:
    from jinja2.utils import _PassArg

    pass_arg = _PassArg.from_obj(fn)

    def run(*args: object, **kwargs: object) -> object:
        skip = 1 if pass_arg is not None else 0  # the first argument is the environment/context
        given = args[skip] if len(args) > skip else None
        if isinstance(given, Iterator):  # a generator (``x|map(...)|join``): its items are counted as they come
            args = (*args[:skip], _bounded_items(given, f"filter {name}"), *args[skip + 1 :])
        plain = args[skip:]
        if check is not None and plain:
            check(*plain, **kwargs)
        elif plain:
            check_size(plain[0], f"filter {name}")
        result = fn(*args, **kwargs)
        return made(result, f"filter {name}") if isinstance(result, (str, list, tuple, dict)) else result

    if pass_arg is not None:
        run.jinja_pass_arg = pass_arg  # type: ignore[attr-defined]  # jinja2 reads this marker off the function
    run.__name__ = getattr(fn, "__name__", name)
    return run


_STR_METHOD_CHECKS: dict[str, Callable[..., None]] = {
    "center": lambda s, width=0, *a: _width(width, "str.center"),
    "ljust": lambda s, width=0, *a: _width(width, "str.ljust"),
    "rjust": lambda s, width=0, *a: _width(width, "str.rjust"),
    "zfill": lambda s, width=0, *a: _width(width, "str.zfill"),
    "expandtabs": lambda s, tabsize=8, *a: _big(
        len(s) + s.count("\t") * (tabsize if isinstance(tabsize, int) else 8), "str.expandtabs"
    ),
    "replace": lambda s, old="", new="", count=-1, *a: _big(_estimate_replace(s, old, new, count), "str.replace"),
    "join": lambda s, items=(), *a: _big(_estimate_join(items, s), "str.join"),
    "translate": _check_translate,
}
_INT_METHOD_CHECKS: dict[str, Callable[..., None]] = {
    "to_bytes": lambda n, length=1, *a, **k: _width(k.get("length", length), "int.to_bytes"),
}


class _BoundedCodeGenerator(CodeGenerator):
    """Compiles ``a ~ b`` to :func:`concat` (bounded before the string is built)."""

    def visit_Concat(self, node: Concat, frame: Frame) -> None:  # jinja2's visitor name
        self.write("environment.jsops_concat((")
        for arg in node.nodes:
            self.visit(arg, frame)
            self.write(", ")
        self.write("))")


def _check_method(obj: object, args: tuple[object, ...], kwargs: dict[str, object]) -> str:
    """Refuse a ``str``/``int`` method call whose result would be too large; the method's name."""
    owner = getattr(obj, "__self__", None)
    name: str = getattr(obj, "__name__", "")
    # jinja2 passes its own _loop_vars/_block_vars inside loops and blocks (Context.call drops them)
    given = {k: v for k, v in kwargs.items() if k not in ("_loop_vars", "_block_vars")}
    if isinstance(owner, (str, bytes)) and name in _STR_METHOD_CHECKS:
        _STR_METHOD_CHECKS[name](owner, *args, **given)
    elif isinstance(owner, int) and name in _INT_METHOD_CHECKS:
        _INT_METHOD_CHECKS[name](owner, *args, **given)
    return name


def bounded_sandbox_class(base: type) -> type:
    """``base`` (an ImmutableSandboxedEnvironment) with every growth step bounded."""

    class Bounded(base):  # type: ignore[misc]  # base is the sandbox class given at run time
        code_generator_class = _BoundedCodeGenerator
        intercepted_binops = frozenset(_BINOPS)

        def __init__(self, *args: object, **kwargs: object) -> None:
            super().__init__(*args, **kwargs)
            self.jsops_concat = concat
            self.globals.pop("lipsum", None)  # lipsum(n) builds n paragraphs of text
            for name, fn in list(self.filters.items()):
                if name in _FILTER_CHECKS or name in _COPYING_FILTERS:
                    self.filters[name] = _bounded_filter(name, fn, _FILTER_CHECKS.get(name))

        def call_binop(self, context: object, op: str, left: object, right: object) -> object:
            return _BINOPS[op](left, right)

        def call(
            __self, __context: object, __obj: object, *args: object, **kwargs: object
        ) -> object:  # jinja2's signature
            name = _check_method(__obj, args, kwargs)
            result = super().call(__context, __obj, *args, **kwargs)
            return (
                made(result, f"{name or 'call'}()") if isinstance(result, (str, bytes, list, tuple, dict)) else result
            )

        def wrap_str_format(self, value: Any) -> Any:
            wrapped = super().wrap_str_format(value)
            if wrapped is None:
                return None
            fmt = value.__self__
            is_map = value.__name__ == "format_map"

            def checked(*args: object, **kwargs: object) -> str:
                if is_map:
                    check_format(fmt, (), dict(args[0]) if args and isinstance(args[0], dict) else {})
                else:
                    check_format(fmt, args, kwargs)
                text: str = made(wrapped(*args, **kwargs), "format")
                return text

            return checked

    return Bounded


# --- time ---------------------------------------------------------------------------------------


@contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Raise :class:`RenderTimeout` in this thread if the block runs longer than ``seconds``."""
    tid = threading.get_ident()
    lock = threading.Lock()
    active = [True]

    def fire() -> None:
        with lock:
            if active[0]:
                ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(tid), ctypes.py_object(RenderTimeout))

    timer = threading.Timer(seconds, fire)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        with lock:
            active[0] = False
            timer.cancel()
            # An exception fired but not yet delivered must not escape into the caller's code.
            ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(tid), None)
