"""Issue 44, item 10: every userinfo part and every query value of a base URL is a secret, in every file niah
writes and every line it prints (a stand-in server on loopback echoes them back in its replies)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from niah.cli import app
from niah.util.redact import redact, redact_url, register_url_secrets
from support.datasets import write_mm_niah_like
from support.openai_server import OpenAIServer

USER_KEY = "tok-USERPART-7f3a9c"
PASS_VALUE = "hunter2-pass-value"
JWT_VALUE = "eyJhbGciOi.jwt-body.sig"
OTHER_VALUE = "plain-named-value-42"
SECRETS = (USER_KEY, PASS_VALUE, JWT_VALUE, OTHER_VALUE)


def _echo_secrets(body: object) -> str:
    """A server that echoes the credentials it was sent back in every reply (gateways do, in errors)."""
    return f"reply; you sent {USER_KEY} with pass={PASS_VALUE}, jwt={JWT_VALUE}, team={OTHER_VALUE}"


@pytest.mark.parametrize("userinfo", [f"{USER_KEY}:", USER_KEY, f"someone:{USER_KEY}"])
def test_no_userinfo_part_or_query_value_reaches_a_file_or_the_terminal(tmp_path: Path, userinfo: str) -> None:
    dataset = write_mm_niah_like(tmp_path / "ds", per_task=1, tasks=("retrieval-text",))
    run = tmp_path / "run"
    with OpenAIServer(responder=_echo_secrets) as server:
        host = server.base_url.split("://", 1)[1]
        url = f"http://{userinfo}@{host}?pass={PASS_VALUE}&jwt={JWT_VALUE}&team={OTHER_VALUE}"
        result = CliRunner().invoke(app, ["run", str(dataset), "--model", "openai:echo", "--base-url", url,
                                          "--out", str(run), "--no-progress"])
        assert result.exit_code == 0, result.output
        assert server.log, "the request reached the server"
    written = [p for p in run.rglob("*") if p.is_file()]
    assert any(p.name == "responses.jsonl" for p in written)
    for path in written:
        data = path.read_bytes()
        for secret in SECRETS:
            assert secret.encode() not in data, (path, secret)
    for secret in SECRETS:
        assert secret not in result.output


def test_redact_url_masks_every_userinfo_part_and_query_value() -> None:
    url = f"https://{USER_KEY}:@gw.example/v1?pass={PASS_VALUE}&jwt={JWT_VALUE}&team={OTHER_VALUE}"
    register_url_secrets(url)
    shown = redact_url(url)
    assert shown == "https://***@gw.example/v1?pass=***&jwt=***&team=***"
    assert all(secret not in redact(f"error at {url}: {secret}") for secret in SECRETS)


FRAGMENT_VALUE = "frag-token-0a1b2c3d"


def test_a_base_url_fragment_is_masked_everywhere(tmp_path: Path) -> None:
    """A fragment is never sent, but one in a base URL (``#access_token=...``) is the user's: masked in run.json
    and every other file, as the query is."""
    dataset = write_mm_niah_like(tmp_path / "ds", per_task=1, tasks=("retrieval-text",))
    run = tmp_path / "run"
    with OpenAIServer() as server:
        url = f"{server.base_url}#access_token={FRAGMENT_VALUE}"
        result = CliRunner().invoke(app, ["run", str(dataset), "--model", "openai:echo", "--base-url", url,
                                          "--out", str(run), "--no-progress"])
        assert result.exit_code == 0, result.output
    for path in (p for p in run.rglob("*") if p.is_file()):
        assert FRAGMENT_VALUE.encode() not in path.read_bytes(), path
    assert FRAGMENT_VALUE not in result.output
    assert redact_url(url).endswith("/v1#***")


def test_the_traceback_of_an_unexpected_error_masks_the_secrets(tmp_path: Path) -> None:
    """A bug's traceback (an exception niah did not expect, whose message holds the base URL it was given) is
    printed with every secret masked: a real ``python -m niah``-style process, failing inside the run."""
    import subprocess
    import sys

    from support.processes import niah_env

    dataset = write_mm_niah_like(tmp_path / "ds", per_task=1, tasks=("retrieval-text",))
    url = f"http://{USER_KEY}:@127.0.0.1:9/v1?pass={PASS_VALUE}"
    driver = (
        "import sys\n"
        "import niah.run\n"
        "def broken(*args, **kw):\n"
        "    raise RuntimeError(f'unexpected failure talking to {sys.argv[sys.argv.index(\"--base-url\") + 1]}')\n"
        "niah.run.run_dataset_sync = broken\n"
        "from niah.cli import main\n"
        f"sys.argv = ['niah', 'run', {str(dataset)!r}, '--model', 'openai:echo', '--base-url', {url!r},\n"
        f"            '--out', {str(tmp_path / 'run')!r}, '--no-progress']\n"
        "main()\n")
    done = subprocess.run([sys.executable, "-c", driver], capture_output=True, text=True, env=niah_env(),
                          timeout=120)
    assert done.returncode == 1 and "RuntimeError: unexpected failure talking to http://***@" in done.stderr, \
        done.stderr
    assert "Traceback" in done.stderr
    for secret in (USER_KEY, PASS_VALUE):
        assert secret not in done.stderr + done.stdout
