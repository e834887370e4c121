"""Custom logic around the actions of Data exports. This file is yours: edit it as you like.

`mcpgen generate` created it and never overwrites it: your code, imports and line endings are kept.
An action without hooks here simply calls the API; define only the hooks you need. To start one,
`mcpgen hooks add OUT TOOL ACTION` adds the two stubs of that action here.

For each action of each tool the server calls, when they are defined here (at the top level, under
an `if`, decorated, or imported, also with `from .module import *`):
- `before_<tool>__<action>(args)` gets the validated arguments (defaults applied, `action` left out)
  and returns the arguments to send upstream, which are sent as returned. It may also return
  `"_headers": {"Name": "value"}` to add request headers; any other key the action does not take is
  an error, never dropped silently;
- `after_<tool>__<action>(result)` gets the upstream's answer as a dict and returns what the agent
  receives.
Either may be `async def`. To answer the agent with an actionable error instead, raise the
`ToolError` of `._runtime.errors`: it names what is wrong and how to recover (the rules "tool errors
are results" and "what, why, how"). When the mapping renames an action, the next run renames its
hooks here; when an action goes away, its hooks stay and the run warns about them.
"""

from __future__ import annotations
