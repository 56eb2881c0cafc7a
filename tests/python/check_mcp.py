"""Drives `lookout mcp` with the official MCP Python SDK client, which validates every
successful result's structured content against the tool's outputSchema.

Reads {"binary", "socket", "log_file"} from stdin; prints one JSON object of findings; exits 1
with the reasons when a check fails.
"""

import asyncio
import json
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

given = json.load(sys.stdin)
failures = []


async def main():
    server = StdioServerParameters(
        command=given["binary"],
        args=["--socket", given["socket"], "mcp"],
        env={"LOOKOUT_LOG": "warn", "PATH": "/usr/bin:/bin"},
    )
    with open(given["log_file"], "w") as log:
        async with stdio_client(server, errlog=log) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                listed = (await session.list_tools()).tools
                hints = {}
                for tool in listed:
                    notes = tool.annotations
                    if notes is None or tool.output_schema is None or not tool.title:
                        failures.append(f"{tool.name} lacks a title, annotations or an outputSchema")
                        continue
                    for hint in ("read_only_hint", "destructive_hint", "idempotent_hint", "open_world_hint"):
                        if getattr(notes, hint) is None:
                            failures.append(f"{tool.name} does not say {hint}")
                    hints[tool.name] = notes
                called = set()

                async def call(name, arguments):
                    # The SDK raises when structured content does not match the outputSchema.
                    try:
                        result = await session.call_tool(name, arguments)
                    except Exception as error:
                        failures.append(f"{name}: {error}")
                        return {}
                    if result.is_error:
                        failures.append(f"{name} failed: {result.content}")
                        return {}
                    called.add(name)
                    return result.structured_content

                task = await call("task_register", {"name": "Deploy coursefolio", "plan": ["Build", "Push", "Verify"]})
                task_id = task.get("task_id")
                await call("task_update", {"task_id": task_id, "message": "Built", "completed_steps": [1]})
                await call("task_update", {"task_id": task_id, "query": "where am I?"})
                await call("task_plan_update", {"task_id": task_id, "new_plan": ["Build", "Test", "Push", "Verify"], "reason": "tests first"})
                await call("task_list", {})
                await call("task_thread", {"task_id": task_id})
                await call("task_get", {"task_id": task_id})
                await call("memory_recall", {"query": "deploy coursefolio"})
                wait = await call("smart_wait", {"target": "file:/nonexistent/lookout-mcp-check.log", "wake_when": "'DONE' appears", "task_id": task_id})
                wait_id = wait.get("wait_id")
                await call("wait_update", {"wait_id": wait_id, "timeout": 600})
                await call("wait_status", {"wait_id": wait_id})
                await call("wait_status", {})
                await call("wait_cancel", {"wait_id": wait_id, "reason": "checked"})
                session_info = await call("term_start", {"command": "sleep 30"})
                session_id = session_info.get("session_id")
                await call("term_send", {"session_id": session_id, "text": "x"})
                await call("term_read", {"session_id": session_id})
                await call("term_stop", {"session_id": session_id, "signal": "KILL"})
                missing = sorted(set(hints) - called)
                if missing:
                    failures.append(f"not called: {missing}")
                read_only = sorted(name for name, notes in hints.items() if notes.read_only_hint)
                destructive = sorted(name for name, notes in hints.items() if notes.destructive_hint)
                return {"tools": len(listed), "called": len(called), "read_only": read_only, "destructive": destructive}


findings = asyncio.run(main())
if failures:
    print(json.dumps({"failures": failures, **(findings or {})}, indent=1))
    sys.exit(1)
print(json.dumps(findings))
