"""The libcst merge of user-owned files, in before/after form (STYLE-ANCHORS 10: user code always wins)."""

from __future__ import annotations

import textwrap

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


    def before_find_get(args: dict[str, Any]) -> dict[str, Any]:
        """find, action `get`: before the request is sent."""
        return args


    def after_find_get(result: dict[str, Any]) -> dict[str, Any]:
        """find, action `get`: the result, before the agent sees it."""
        return result


    def before_find_search(args: dict[str, Any]) -> dict[str, Any]:
        """find, action `search`: before the request is sent."""
        return args


    def after_find_search(result: dict[str, Any]) -> dict[str, Any]:
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


    def before_find_get(args: dict[str, Any]) -> dict[str, Any]:
        args["id"] = normalise(args["id"])
        return args


    def after_find_get(result: dict[str, Any]) -> dict[str, Any]:
        """find, action `get`: the result, before the agent sees it."""
        return result


    def before_find_list(args: dict[str, Any]) -> dict[str, Any]:
        args.setdefault("limit", 10)
        return args


    def after_find_list(result: dict[str, Any]) -> dict[str, Any]:
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


    def before_find_get(args: dict[str, Any]) -> dict[str, Any]:
        args["id"] = normalise(args["id"])
        return args


    def after_find_get(result: dict[str, Any]) -> dict[str, Any]:
        """find, action `get`: the result, before the agent sees it."""
        return result


    def before_find_search(args: dict[str, Any]) -> dict[str, Any]:
        """find, action `search`: before the request is sent."""
        return args


    def after_find_search(result: dict[str, Any]) -> dict[str, Any]:
        """find, action `search`: the result, before the agent sees it."""
        return result


    def before_find_list(args: dict[str, Any]) -> dict[str, Any]:
        args.setdefault("limit", 10)
        return args


    def after_find_list(result: dict[str, Any]) -> dict[str, Any]:
        return result
    '''
)


def test_user_code_wins_new_stubs_are_added_and_removed_actions_are_kept() -> None:
    result = merge(USER, FRESH, path="pkg/hooks.py")
    assert result.code == MERGED
    assert result.added == ("before_find_search", "after_find_search")
    assert result.orphaned == ("before_find_list", "after_find_list")
    assert result.imports_added == ()


def test_hooks_of_removed_actions_are_reported_with_their_line() -> None:
    result = merge(USER, FRESH, path="pkg/hooks.py")
    assert [(d.level, d.code, d.source.file, d.source.line) for d in result.diagnostics] == [
        (Level.WARNING, "U002", "pkg/hooks.py", 25),
        (Level.WARNING, "U002", "pkg/hooks.py", 30),
    ]
    assert "before_find_list belongs to no action" in result.diagnostics[0].message


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
        from .shared import before_find_get


        def after_find_get(result):
            return result


        before_find_search = after_find_search = before_find_get
        """
    )
    result = merge(user, FRESH)
    # An import binds before_find_get; `a = b = c` binds both search hooks: nothing is missing.
    assert result.added == ()
    assert result.code == user


def test_imports_a_new_stub_needs_are_added_after_the_users_imports() -> None:
    user = code(
        '''
        """Mine."""

        import logging


        def before_find_get(args):
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


        def before_find_get(args):
    ''')
    )
    assert merge(result.code, FRESH).code == result.code


def test_an_import_after_the_docstring_gets_a_blank_line() -> None:
    user = '"""Only a docstring."""\n'
    result = merge(user, FRESH)
    assert result.code.startswith(
        '"""Only a docstring."""\n\nfrom typing import Any\n\n\ndef before_find_get('
    )


def test_a_file_that_does_not_parse_is_left_alone_and_reported() -> None:
    user = "def before_find_get(args:\n    return args\n"
    result = merge(user, FRESH, path="pkg/hooks.py")
    assert result.code == user
    (problem,) = result.diagnostics
    assert (problem.code, problem.source.file, problem.source.line) == ("U001", "pkg/hooks.py", 2)


def test_hook_names_keep_tool_and_action_apart() -> None:
    # Both exist in the mapping `mcpgen init` drafts for Slack.
    assert hook_names("slack", "slack_admin_teams", "list") == (
        "before_admin_teams__list",
        "after_admin_teams__list",
    )
    assert hook_names("slack", "slack_admin", "teams_list")[0] == "before_admin__teams_list"
