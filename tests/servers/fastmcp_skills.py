"""A FastMCP 4.2 server on stdio that serves the Agent Skills found under a folder (SEP-2640, through
FastMCP's SkillsDirectoryProvider), for tests/cli_skills.rs. Run with the FastMCP venv's python:

    .deps/venv-fastmcp/bin/python tests/servers/fastmcp_skills.py SKILLS_ROOT
"""
import sys

from fastmcp import FastMCP
from fastmcp.skills.provider import SkillsDirectoryProvider

mcp = FastMCP("fastmcp-skills")
mcp.add_provider(SkillsDirectoryProvider(sys.argv[1]))
mcp.run(show_banner=False)
