"""Credentials in request bodies the draft sends from the server's environment (P3 credentials).

The build never offers a body field that carries the API's credential to the agent
(build/body_credentials.py: Plaid's `client_id`, `secret`, `access_token`). One the operation requires
and the drafted `auth` does not send (or that a body, once sent, must hold) is drafted as `params: {access_token: {env: PLAID_ACCESS_TOKEN}}`:
a value per deployment, set by the user, never seen by the model. One it may leave out stays out.
"""

from __future__ import annotations

from dataclasses import replace

from mcpgen.authoring.model import DraftAuth, DraftParam, DraftTool
from mcpgen.build.parameters import spec_params
from mcpgen.diagnostics import rule_name
from mcpgen.load.openapi import Spec, find_operation
from mcpgen.names import snake_case


def with_credential_envs(
    spec: Spec, tools: list[DraftTool], server: str, auths: tuple[DraftAuth, ...]
) -> list[DraftTool]:
    """The tools with each required body credential no `auth` sends drafted as an environment value."""
    in_body = {(a.name or "").lower() for a in auths if a.location == "body"}
    out = []
    for tool in tools:
        actions = []
        for action in tool.actions:
            operation = find_operation(spec, action.operation)
            params, _, _ = spec_params(spec, operation) if operation is not None else ([], None, [])
            envs = tuple(
                DraftParam(
                    key=p.wire_name,
                    name=snake_case(p.wire_name),
                    why=f"a credential: the server sends it from its environment, the agent never sees it "
                    f"({rule_name('P3')})",
                    env=f"{server.upper()}_{snake_case(p.wire_name).upper()}"[:64],
                )
                for p in params
                if p.credential
                and (p.required or p.required_with_body)
                and p.wire_name.lower() not in in_body
            )
            actions.append(replace(action, params=action.params + envs) if envs else action)
        out.append(replace(tool, actions=tuple(actions)))
    return out
