"""``jsops completion SHELL``: shell completion scripts for bash, zsh and fish.

The scripts are static text: the commands and each command's options, read when the script is
printed, so completing costs the shell nothing and imports no Python.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

__all__ = ["completion_script"]


def _bash(commands: Sequence[str], options: dict[str, list[str]]) -> str:
    cases = "\n".join(f'        {c}) opts="{" ".join(options[c])}" ;;' for c in commands if options[c])
    return f"""# bash completion for jsops (jsops completion bash)
_jsops() {{
    local cur cmd opts
    cur="${{COMP_WORDS[COMP_CWORD]}}"
    cmd="${{COMP_WORDS[1]}}"
    if [ "$COMP_CWORD" -eq 1 ]; then
        COMPREPLY=($(compgen -W "{" ".join(commands)} --help --version" -- "$cur"))
        return
    fi
    if [ "$cmd" = help ] && [ "$COMP_CWORD" -eq 2 ]; then
        COMPREPLY=($(compgen -W "{" ".join(commands)}" -- "$cur"))
        return
    fi
    opts=""
    case "$cmd" in
{cases}
    esac
    if [[ "$cur" == -* ]]; then
        COMPREPLY=($(compgen -W "$opts" -- "$cur"))
    else
        COMPREPLY=($(compgen -f -- "$cur"))
    fi
}}
complete -o filenames -F _jsops jsops
"""


def _zsh(commands: Sequence[str], options: dict[str, list[str]], summaries: dict[str, str]) -> str:
    described = "\n".join(f"    '{c}:{summaries.get(c, c).replace(chr(39), '')}'" for c in commands)
    cases = "\n".join(
        f"    {c}) _arguments '*:file:_files' {' '.join(repr(o) for o in options[c])} ;;"
        for c in commands
        if options[c]
    )
    return f"""#compdef jsops
# zsh completion for jsops (jsops completion zsh)
_jsops() {{
  local -a commands
  commands=(
{described}
  )
  if (( CURRENT == 2 )); then
    _describe 'command' commands
    return
  fi
  case "$words[2]" in
    help) _describe 'command' commands ;;
{cases}
    *) _files ;;
  esac
}}
compdef _jsops jsops
"""


def _fish(commands: Sequence[str], options: dict[str, list[str]], summaries: dict[str, str]) -> str:
    lines = [
        "# fish completion for jsops (jsops completion fish)",
        "complete -c jsops -f -n '__fish_use_subcommand' -l help -l version",
    ]
    for c in commands:
        desc = summaries.get(c, c).replace("'", "")
        lines.append(f"complete -c jsops -f -n '__fish_use_subcommand' -a {c} -d '{desc}'")
    lines.append(f"complete -c jsops -f -n '__fish_seen_subcommand_from help' -a '{' '.join(commands)}'")
    for c in commands:
        for o in options[c]:
            lines.append(f"complete -c jsops -n '__fish_seen_subcommand_from {c}' -l {o[2:]}")
    return "\n".join(lines) + "\n"


def completion_script(
    shell: str, commands: Sequence[str], options_of: Callable[[str], list[str]], summaries: dict[str, str]
) -> str:
    """The completion script for ``shell``: ``commands`` with each one's options (``options_of``) and its
    one-line summary (zsh and fish show it)."""
    options = {c: options_of(c) if c not in ("help", "completion") else [] for c in commands}
    if shell == "bash":
        return _bash(commands, options)
    if shell == "zsh":
        return _zsh(commands, options, summaries)
    if shell == "fish":
        return _fish(commands, options, summaries)
    raise ValueError(f"unknown shell {shell!r}")
