r"""MkDocs hooks for annc's site (mkdocs.yml, ``hooks:``).

- ``docs/solvers-versions.md`` is written on another branch: until it exists here, the
  site gets a stub page under its name, so that the links to it and the nav entry hold in
  a strict build whichever branch lands first.  Once the file exists, it is used as is.
- annc's docstrings use Sphinx roles (``:func:`annc.app.api.train` ``); mkdocstrings renders
  the role name as text before the code span.  They are shown as plain code, with a
  leading ``~`` (Sphinx: show only the last name) honoured.
- A table cell's code span writes a pipe as ``\|``, as GitHub's tables need; Python-Markdown
  keeps code spans whole and would show the backslash, so it is dropped there.
"""
from __future__ import annotations

import re

from mkdocs.structure.files import File

SOLVERS_VERSIONS = "solvers-versions.md"
STUB = """# Solver versions

Which solver versions annc is tested against is written on another branch and appears
here when it lands. Meanwhile, [Solvers and files](solvers.md) lists the solvers annc
drives and the output formats it reads.
"""

ROLE = re.compile(r":(?:py:)?(?:func|meth|class|mod|attr|data|exc|obj|const):<code>(~?)([^<]*)</code>")


CODE_SPAN = re.compile(r"`[^`\n]*`")


def on_page_markdown(markdown, page, config, files):
    lines = markdown.split("\n")
    for i, line in enumerate(lines):
        if line.lstrip().startswith("|"):
            lines[i] = CODE_SPAN.sub(lambda m: m.group(0).replace("\\|", "|"), line)
    return "\n".join(lines)


def on_files(files, config):
    if files.get_file_from_path(SOLVERS_VERSIONS) is None:
        files.append(File.generated(config, SOLVERS_VERSIONS, content=STUB))
    return files


def _code(match: re.Match) -> str:
    tilde, target = match.groups()
    return f"<code>{target.rsplit('.', 1)[-1] if tilde else target}</code>"


def on_page_content(html, page, config, files):
    return ROLE.sub(_code, html)
