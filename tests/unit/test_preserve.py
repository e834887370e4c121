"""The libcst merge of user-owned files, in before/after form (STYLE-ANCHORS 10: user code always wins)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from mcpgen.diagnostics import Level
from mcpgen.names import hook_names
from mcpgen.write.preserve import merge


def code(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


FRESH = code(
    '''
    """Hooks."""

    from __future__ import annotations

    from typing import Any


    def before_find__get(args: dict[str, Any]) -> dict[str, Any]:
        """find, action `get`: before the request is sent."""
        return args


    def after_find__get(result: dict[str, Any]) -> dict[str, Any]:
        """find, action `get`: the result, before the agent sees it."""
        return result


    def before_find__search(args: dict[str, Any]) -> dict[str, Any]:
        """find, action `search`: before the request is sent."""
        return args


    def after_find__search(result: dict[str, Any]) -> dict[str, Any]:
        """find, action `search`: the result, before the agent sees it."""
        return result
    '''
)

# The user's file from an earlier render that had actions `get` and `list` (since removed), with edits.
USER = code(
    '''
    """Hooks, with the team's rules."""

    from __future__ import annotations

    import re
    from typing import Any

    TICKET = re.compile(r"[A-Z]+-[0-9]+")


    def normalise(text: str) -> str:
        return " ".join(text.split())


    def before_find__get(args: dict[str, Any]) -> dict[str, Any]:
        args["id"] = normalise(args["id"])
        return args


    def after_find__get(result: dict[str, Any]) -> dict[str, Any]:
        """find, action `get`: the result, before the agent sees it."""
        return result


    def before_find__list(args: dict[str, Any]) -> dict[str, Any]:
        args.setdefault("limit", 10)
        return args


    def after_find__list(result: dict[str, Any]) -> dict[str, Any]:
        return result
    '''
)

MERGED = code(
    '''
    """Hooks, with the team's rules."""

    from __future__ import annotations

    import re
    from typing import Any

    TICKET = re.compile(r"[A-Z]+-[0-9]+")


    def normalise(text: str) -> str:
        return " ".join(text.split())


    def before_find__get(args: dict[str, Any]) -> dict[str, Any]:
        args["id"] = normalise(args["id"])
        return args


    def after_find__get(result: dict[str, Any]) -> dict[str, Any]:
        """find, action `get`: the result, before the agent sees it."""
        return result


    def before_find__search(args: dict[str, Any]) -> dict[str, Any]:
        """find, action `search`: before the request is sent."""
        return args


    def after_find__search(result: dict[str, Any]) -> dict[str, Any]:
        """find, action `search`: the result, before the agent sees it."""
        return result


    def before_find__list(args: dict[str, Any]) -> dict[str, Any]:
        args.setdefault("limit", 10)
        return args


    def after_find__list(result: dict[str, Any]) -> dict[str, Any]:
        return result
    '''
)


def test_user_code_wins_new_stubs_are_added_and_removed_actions_are_kept() -> None:
    result = merge(USER, FRESH, path="pkg/hooks.py")
    assert result.code == MERGED
    assert result.added == ("before_find__search", "after_find__search")
    assert result.orphaned == ("before_find__list", "after_find__list")
    assert result.imports_added == ()


def test_hooks_of_removed_actions_are_reported_with_their_line() -> None:
    result = merge(USER, FRESH, path="pkg/hooks.py")
    assert [(d.level, d.code, d.source.file, d.source.line) for d in result.diagnostics] == [
        (Level.WARNING, "U002", "pkg/hooks.py", 25),
        (Level.WARNING, "U002", "pkg/hooks.py", 30),
    ]
    assert "before_find__list belongs to no action" in result.diagnostics[0].message


def test_merging_twice_changes_nothing() -> None:
    once = merge(USER, FRESH).code
    again = merge(once, FRESH)
    assert again.code == once
    assert again.added == ()


def test_the_fresh_render_merged_into_itself_is_itself() -> None:
    assert merge(FRESH, FRESH).code == FRESH


def test_a_stub_the_user_bound_another_way_is_not_added_again() -> None:
    user = code(
        """
        from .shared import before_find__get


        def after_find__get(result):
            return result


        before_find__search = after_find__search = before_find__get
        """
    )
    result = merge(user, FRESH)
    # An import binds before_find__get; `a = b = c` binds both search hooks: nothing is missing.
    assert result.added == ()
    assert result.code == user


def test_imports_a_new_stub_needs_are_added_after_the_users_imports() -> None:
    user = code(
        '''
        """Mine."""

        import logging


        def before_find__get(args):
            logging.info("get")
            return args
        '''
    )
    result = merge(user, FRESH)
    assert result.imports_added == ("from typing import Any",)
    assert result.code.startswith(
        code('''
        """Mine."""

        import logging
        from typing import Any


        def before_find__get(args):
    ''')
    )
    assert merge(result.code, FRESH).code == result.code


def test_an_import_after_the_docstring_gets_a_blank_line() -> None:
    user = '"""Only a docstring."""\n'
    result = merge(user, FRESH)
    assert result.code.startswith(
        '"""Only a docstring."""\n\nfrom typing import Any\n\n\ndef before_find__get('
    )


def test_a_file_that_does_not_parse_is_an_error_at_pythons_own_line_and_column() -> None:
    # Before: a warning at libcst's guess (line 2), exit 0, and the server crashed at start.
    # After: an error at the place Python itself reports ('(' was never closed, line 1 column 21).
    user = "def before_find__get(args:\n    return args\n"
    result = merge(user, FRESH, path="pkg/hooks.py")
    assert result.code == user and result.failed
    (problem,) = result.diagnostics
    assert (problem.level, problem.code, problem.source.file) == (Level.ERROR, "U001", "pkg/hooks.py")
    with pytest.raises(SyntaxError) as python:
        compile(user, "pkg/hooks.py", "exec")
    assert (
        (problem.source.line, problem.source.column) == (python.value.lineno, python.value.offset) == (1, 21)
    )
    assert "'(' was never closed (line 1, column 21)" in problem.message


def test_hook_names_keep_tool_and_action_apart() -> None:
    # Both exist in the mapping `mcpgen init` drafts for Slack.
    assert hook_names("slack", "slack_admin_teams", "list") == (
        "before_admin_teams__list",
        "after_admin_teams__list",
    )
    assert hook_names("slack", "slack_admin", "teams_list")[0] == "before_admin__teams_list"


# --- hooks bound in ways other than a plain top-level def (issue 13) ------------------------------
# Before: only top-level statements counted, so a stub was appended after the user's hook and, being
# defined last, replaced it at runtime. After: the hook is recognized and no stub is added.

ONE_ACTION = code(
    """
    from __future__ import annotations

    from typing import Any


    def before_find__get(args: dict[str, Any]) -> dict[str, Any]:
        return args


    def after_find__get(result: dict[str, Any]) -> dict[str, Any]:
        return result
    """
)


@pytest.mark.parametrize(
    "user",
    [
        pytest.param(
            code(
                """
                import os

                if os.environ.get("STRICT"):
                    def before_find__get(args):
                        return {**args, "strict": True}
                else:
                    before_find__get = dict
                try:
                    from .extra import after_find__get
                except ImportError:
                    def after_find__get(result):
                        return result
                """
            ),
            id="under if and try",
        ),
        pytest.param(
            code(
                """
                import functools


                def traced(hook):
                    @functools.wraps(hook)
                    def wrapper(value):
                        return hook(value)
                    return wrapper


                @traced
                def before_find__get(args):
                    return args


                after_find__get = traced(lambda result: result)
                """
            ),
            id="decorated and wrapped",
        ),
        pytest.param("from .impl import *\n", id="star import from a sibling"),
        pytest.param(
            "from .impl import *  # noqa\n\nif True: before_find__get = dict\n",
            id="one-line if suite",
        ),
    ],
)
def test_a_hook_bound_anywhere_at_the_top_level_gets_no_stub(user: str, tmp_path: Path) -> None:
    (tmp_path / "impl.py").write_text(
        "from .deeper import *\n\ndef before_find__get(args):\n    return args\n", encoding="utf-8"
    )
    (tmp_path / "deeper.py").write_text("after_find__get = dict\n_private = 1\n", encoding="utf-8")
    result = merge(user, ONE_ACTION, path=str(tmp_path / "hooks.py"))
    assert result.added == ()
    assert result.code == user
    assert result.diagnostics == ()


def test_a_star_import_mcpgen_cannot_read_adds_no_stub_and_says_why() -> None:
    user = "from team_hooks import *\n"
    result = merge(user, ONE_ACTION, path="pkg/hooks.py")
    assert result.code == user and result.added == ()
    (notice,) = result.diagnostics
    assert (notice.level, notice.code, notice.source.line) == (Level.WARNING, "U003", 1)
    assert "imports * from team_hooks" in notice.message and "before_find__get" in notice.message


def test_a_sibling_with_all_binds_only_what_it_lists(tmp_path: Path) -> None:
    (tmp_path / "impl.py").write_text(
        "__all__ = ['before_find__get']\n\ndef before_find__get(a):\n    return a\n"
        "def after_find__get(r):\n    return r\n",
        encoding="utf-8",
    )
    result = merge("from .impl import *\n", ONE_ACTION, path=str(tmp_path / "hooks.py"))
    assert result.added == ("after_find__get",)  # after_ is not exported, so it is not bound here


# --- line endings and lines as written --------------------------------------------------------------


def test_a_crlf_file_stays_crlf_and_orphans_are_reported_at_its_own_lines() -> None:
    # Before: the file was read with newline translation and written back with LF endings.
    # After: every line keeps its CRLF, stubs added to it get CRLF too, and U002 names the line an
    # editor shows for the file as written.
    user = "\r\n".join(
        [
            '"""Mine."""',
            "",
            "",
            "def before_gone__list(args):",
            "    return args",
            "",
            "",
            "def after_find__get(result):",
            "    return result",
            "",
        ]
    )
    result = merge(user, ONE_ACTION, path="pkg/hooks.py", known={"before_find__get", "after_find__get"})
    assert result.added == ("before_find__get",)
    assert "\n" not in result.code.replace("\r\n", "")
    merged_lines = iter(result.code.split("\r\n"))
    assert all(line in merged_lines for line in user.split("\r\n"))  # the user's lines, in order
    assert "def before_find__get(args: dict[str, Any]) -> dict[str, Any]:\r\n" in result.code
    (orphan,) = result.diagnostics
    assert (orphan.code, orphan.source.line) == ("U002", 4)
    assert user.split("\r\n")[orphan.source.line - 1] == "def before_gone__list(args):"
    assert merge(result.code, ONE_ACTION, known={"before_find__get", "after_find__get"}).code == result.code


def test_helpers_named_like_before_something_are_not_orphaned_hooks() -> None:
    user = "def before_request(args):\n    return args\n\n\ndef after_all(result):\n    return result\n"
    assert merge(user, ONE_ACTION, known=set()).orphaned == ()


def test_orphans_are_judged_against_every_hook_the_server_calls_not_just_the_stubs() -> None:
    # Hooks are opt-in: the fresh render has no stubs, so a hook of a live action is no orphan.
    user = "def before_find__search(args):\n    return args\n"
    result = merge(user, '"""Hooks."""\n', known={"before_find__search", "after_find__search"})
    assert result.orphaned == () and result.diagnostics == () and result.code == user


# --- renamed actions ---------------------------------------------------------------------------------


def test_a_renamed_actions_hook_follows_it() -> None:
    # Before: the user's before_find__get stayed, the server called before_find__fetch (absent), and
    # the hook silently stopped running. After: the def and its uses are renamed.
    user = code(
        """
        def before_find__get(args):
            return args


        ALIASES = {"get": before_find__get}
        """
    )
    renames = {"before_find__get": "before_find__fetch", "after_find__get": "after_find__fetch"}
    result = merge(user, '"""Hooks."""\n', renames=renames, known={"before_find__fetch", "after_find__fetch"})
    assert result.code == user.replace("before_find__get", "before_find__fetch")
    assert result.renamed == (("before_find__get", "before_find__fetch"),)
    assert result.diagnostics == ()


def test_a_renamed_hooks_stub_docstring_names_the_new_action() -> None:
    # The docstring `mcpgen hooks add` wrote names the action: renamed with the def, not left behind.
    user = code(
        '''
        def before_find__get(args):
            """shop_find, action `get` (GET /items/{id}): before the request is sent."""
            return args
        '''
    )
    result = merge(user, '"""Hooks."""\n', renames={"before_find__get": "before_find__fetch"})
    assert '"""shop_find, action `fetch` (GET /items/{id}): before the request is sent."""' in result.code
    assert "before_find__get" not in result.code and "`get`" not in result.code


@pytest.mark.parametrize(
    ("user", "says"),
    [
        ("if True:\n    def before_find__get(args):\n        return args\n", "rename before_find__get"),
        ("from .impl import before_find__get\n", "rename before_find__get"),
        (
            "def before_find__get(a):\n    return a\n\n\ndef before_find__fetch(a):\n    return a\n",
            "already defines before_find__fetch",
        ),
    ],
    ids=["under if", "imported", "new name taken"],
)
def test_a_renamed_actions_hook_that_cannot_follow_fails_the_run(user: str, says: str) -> None:
    result = merge(user, '"""Hooks."""\n', renames={"before_find__get": "before_find__fetch"})
    assert result.failed and result.code == user
    (problem,) = result.diagnostics
    assert (problem.level, problem.code) == (Level.ERROR, "U004")
    assert says in problem.message + (problem.hint or "")


def test_hooks_known_and_renamed_come_from_the_two_lock_files() -> None:
    # generated/ads/tools.lock.json: budget_change is served as _preview and _apply, its hooks as one.
    from mcpgen.write.hook_actions import hook_changes

    lock = (Path(__file__).resolve().parents[2] / "generated" / "ads" / "tools.lock.json").read_text(
        encoding="utf-8"
    )
    same = hook_changes(lock, lock)
    assert same.renames == {}
    assert {"before_budget_change__set", "after_budget_change__set"} <= (same.known or set())
    assert not any("_preview" in name or "_apply" in name for name in same.known or ())
    renamed = lock.replace('"name": "pause"', '"name": "halt"')
    assert hook_changes(lock, renamed).renames == {
        "before_campaign_change__pause": "before_campaign_change__halt",
        "after_campaign_change__pause": "after_campaign_change__halt",
    }
