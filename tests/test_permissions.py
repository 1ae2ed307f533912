"""The file gate (lang.core.safety): what a stranger's model file may read and write.

Each test runs programs the way an attacker would write them, in a fresh current folder
(`tmp_path/work`), and checks that the host outside the allowed trees is untouched and
that every refusal is a Julia-style `SystemError` naming the flag that would allow it.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grammar.errors import ZylaError
from lang.core.safety import configure
from lang.door.cli import command, dispatch
from lang.door.repl import Session
from lang.door.wiring import Runtime

PLOT = 'using UnicodePlots\np = lineplot([1.0, 2.0, 3.0]; title = "\\nimport os\\n")\n'


@pytest.fixture()
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A current folder with a data file, a sibling folder outside it, and a runtime
    made there (the policy takes the current folder when the runtime starts)."""
    cwd = tmp_path / "work"
    cwd.mkdir()
    (cwd / "data.txt").write_text("1 2\n3 4\n")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.txt").write_text("s3cret")
    monkeypatch.chdir(cwd)
    return cwd


def _run(src: str) -> object:
    rt = Runtime()
    return rt.run_source(src, "model.jl")


def _refusal(src: str) -> ZylaError:
    with pytest.raises(ZylaError) as info:
        _run(src)
    err = info.value
    assert err.kind == "SystemError", err
    assert "not allowed" in err.message
    return err


def test_reads_inside_the_current_folder(work: Path) -> None:
    assert _run('read("data.txt", String)') == "1 2\n3 4\n"
    assert _run('size(readdlm("data.txt"))') == (2, 2)
    assert _run('isfile("data.txt")') is True


@pytest.mark.parametrize("path", ["/etc/passwd", "/proc/self/environ", "/dev/zero",
                                  "/sys/kernel/notes", "../outside/secret.txt"])
def test_reads_outside_are_refused_with_the_flag_that_allows_them(work: Path, path: str) -> None:
    err = _refusal(f'read("{path}", String)')
    assert err.hint and "--allow-read=" in err.hint


def test_hidden_files_and_symlinks_out_are_not_readable(work: Path, tmp_path: Path) -> None:
    (work / ".env").write_text("TOKEN=1")
    _refusal('read(".env", String)')
    (work / "link.txt").symlink_to(tmp_path / "outside" / "secret.txt")
    _refusal('read("link.txt", String)')  # the link resolves outside
    _refusal('isfile("/etc/passwd")')  # not even whether it exists
    _refusal('include("../outside/secret.txt")')


@pytest.mark.parametrize("path", ["x.pth", ".bashrc", "sub/.config/x", "setup.py", "run.sh",
                                  "Makefile", "package.json", "bin/tool", "pyproject.toml",
                                  "venv/lib/python3.11/site-packages/evil.txt"])
def test_files_that_tools_run_are_not_written(work: Path, path: str) -> None:
    (work / "sub").mkdir()
    _refusal(PLOT + f'savefig(p, "{path}")')
    assert not (work / path).exists()


def test_writes_outside_the_current_folder_are_refused(work: Path, tmp_path: Path) -> None:
    err = _refusal(PLOT + f'savefig(p, "{tmp_path / "outside" / "x.txt"}")')
    assert err.hint and "--allow-write=" in err.hint
    _refusal(PLOT + 'savefig(p, "/tmp/zyla-escape.pth")')
    (work / "out").symlink_to(tmp_path / "outside")
    _refusal(PLOT + 'savefig(p, "out/plot.txt")')  # a link out of the tree
    assert sorted(p.name for p in (tmp_path / "outside").iterdir()) == ["secret.txt"]


def test_a_python_environment_in_the_folder_is_not_written(work: Path) -> None:
    env = work / "env"
    (env / "lib").mkdir(parents=True)
    (env / "pyvenv.cfg").write_text("home = /usr/bin\n")
    _refusal(PLOT + 'savefig(p, "env/lib/notes.txt")')


def test_writes_inside_the_current_folder_work(work: Path) -> None:
    (work / "plots").mkdir()
    _run(PLOT + 'savefig(p, "plots/loss.txt")')
    assert (work / "plots" / "loss.txt").read_text().strip()


def test_flags_add_paths(work: Path, tmp_path: Path) -> None:
    rt = Runtime()
    configure(rt, None, allow_read=[str(tmp_path / "outside")],
              allow_write=[str(tmp_path / "outside")])
    assert rt.run_source('read("../outside/secret.txt", String)', "m.jl") == "s3cret"
    rt.run_source(PLOT + f'savefig(p, "{tmp_path / "outside" / "p.txt"}")', "m.jl")
    assert (tmp_path / "outside" / "p.txt").exists()
    with pytest.raises(ZylaError):  # still no hidden or executed files there
        rt.run_source(f'savefig(p, "{tmp_path / "outside" / "x.py"}")', "m.jl")
    named = tmp_path / "outside" / "named.py"
    configure(rt, None, allow_write=[str(named)])  # the file itself, named by the user
    rt.run_source(f'savefig(p, "{named}")', "m.jl")
    assert named.exists()


def test_the_program_folder_is_readable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "weights.txt").write_text("0.5\n")
    (proj / "model.jl").write_text(f'println(read("{proj / "weights.txt"}", String))\n')
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert dispatch(["run", str(proj / "model.jl")]) == 0
    assert "0.5" in capsys.readouterr().out


def test_cli_flags(work: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    secret = tmp_path / "outside" / "secret.txt"
    code = f'print(read("{secret}", String))'
    assert dispatch(["-e", code]) == 1
    err = capsys.readouterr().err
    assert "ERROR: SystemError" in err and "--allow-read=" in err and "Traceback" not in err
    assert dispatch([f"--allow-read={secret}", "-e", code]) == 0
    assert capsys.readouterr().out == "s3cret"
    assert dispatch(["--allow-read", "-e", "1"]) == 2  # a flag without paths is a usage error
    capsys.readouterr()


def test_env_holds_only_the_variables_the_user_names(
        work: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("ZYLA_TEST_SECRET", "s3cret")
    monkeypatch.setenv("ZYLA_TEST_OPEN", "open")
    code = ('println(get(ENV, "ZYLA_TEST_SECRET", "-"), " ", get(ENV, "ZYLA_TEST_OPEN", "-"), '
            '" ", length(ENV)); ENV["ZYLA_TEST_OPEN"] = "changed"; ENV["NEW"] = "x"; '
            'println(ENV["ZYLA_TEST_OPEN"], " ", typeof(ENV))')
    assert dispatch(["-e", code]) == 0
    assert capsys.readouterr().out == "- - 0\nchanged Dict{String, String}\n"
    assert dispatch(["--allow-env=ZYLA_TEST_OPEN,ZYLA_TEST_UNSET", "-e", code]) == 0
    assert capsys.readouterr().out == "- open 1\nchanged Dict{String, String}\n"
    # the program's writes never reach the process environment
    assert os.environ["ZYLA_TEST_OPEN"] == "open" and "NEW" not in os.environ
    assert dispatch(["--allow-env", "-e", "1"]) == 2
    assert "--allow-env needs names" in capsys.readouterr().err
    Session(allow_env=["ZYLA_TEST_SECRET"]).evaluate('ENV["ZYLA_TEST_SECRET"]')
    assert '"s3cret"' in capsys.readouterr().out


def test_repl_session_takes_the_flags(work: Path, tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    secret = tmp_path / "outside" / "secret.txt"
    Session().evaluate(f'read("{secret}", String)')
    assert "SystemError" in capsys.readouterr().err
    Session(allow_read=[str(secret)]).evaluate(f'read("{secret}", String)')
    assert '"s3cret"' in capsys.readouterr().out


def test_an_attack_through_zyla_run_leaves_the_host_alone(tmp_path: Path) -> None:
    """The .pth probe of the issue, as a file run by a fresh `zyla run`."""
    work = tmp_path / "work"
    work.mkdir()
    site = tmp_path / "site-packages"
    site.mkdir()
    prog = work / "model.jl"
    prog.write_text(PLOT + f'savefig(p, "{site / "x.pth"}")\n')
    res = subprocess.run(command() + ["run", str(prog)], cwd=work, capture_output=True,
                         text=True, timeout=300)
    assert res.returncode == 1
    assert "ERROR: SystemError" in res.stderr and "Traceback" not in res.stderr
    assert not (site / "x.pth").exists()


@pytest.fixture(scope="module")
def fuzz_rt() -> Runtime:
    return Runtime()


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(["..", ".", "a", ".hidden", "bin", "x.py", "/", "data.txt",
                                 "~", "/proc", "self", "//", "sub", "/etc"]),
                min_size=1, max_size=6))
def test_no_drawn_path_escapes_the_read_gate(fuzz_rt: Runtime, parts: list[str]) -> None:
    """Random paths: whatever the gate lets a program look at is inside the current folder
    (the runtime's, here the suite's), and not hidden below it."""
    cwd = Path.cwd().resolve()
    path = "/".join(parts)
    rt = fuzz_rt
    rt.globals["path"] = path
    try:
        rt.run_source('isfile(path)', "fuzz.jl")
        readable = True
    except ZylaError as e:
        assert e.kind in ("SystemError", "ArgumentError"), e
        readable = False
    full = Path(os.path.realpath(os.path.abspath(os.path.expanduser(path))))
    if readable:
        assert full == cwd or cwd in full.parents
        assert not any(p.startswith(".") for p in full.parts[len(cwd.parts):])


@settings(max_examples=30, deadline=None)
@given(st.lists(st.sampled_from(["..", ".", "a", ".hidden", "bin", "x.py", "/", "out.txt",
                                 "~", "/tmp", "p.pth", "site-packages", "sub", "run.sh",
                                 "Makefile", "/proc", "/dev"]), min_size=1, max_size=5))
def test_no_drawn_path_escapes_the_write_gate(tmp_path_factory: pytest.TempPathFactory,
                                              parts: list[str]) -> None:
    """Random paths handed to `savefig` from a fresh current folder: every file that
    appears anywhere under the test's root is inside the current folder's tree, not
    hidden below it, and not a file that tools run."""
    root = tmp_path_factory.mktemp("gate")
    cwd = root / "work"
    (cwd / "sub").mkdir(parents=True)
    (cwd / "a").mkdir()
    path = "/".join(parts)
    target = Path(os.path.realpath(os.path.join(cwd, os.path.expanduser(path))))
    existed = target.exists()
    old = os.getcwd()
    os.chdir(cwd)
    try:
        rt = Runtime()
        rt.globals["path"] = path
        try:
            rt.run_source(PLOT + "savefig(p, path)", "fuzz.jl")
        except ZylaError as e:
            assert e.kind in ("SystemError", "ArgumentError"), e
    finally:
        os.chdir(old)
    if not (target == cwd or cwd in target.parents):
        assert target.exists() == existed, target  # nothing was written out there
    made = [p for p in root.rglob("*") if p.is_file()]
    for p in made:
        rel = p.relative_to(cwd)  # raises if the file is outside the current folder
        assert not any(part.startswith(".") for part in rel.parts), p
        assert p.suffix not in (".py", ".pth", ".sh") and p.name != "Makefile", p


def test_reads_are_bounded(work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file larger than the read limit is refused with the setting that allows it
    (memory would run out long before a huge file were read)."""
    (work / "big.txt").write_text("x" * 5000)
    monkeypatch.setenv("ZYLA_MAX_READ", "4096")
    for src in ('read("big.txt", String)', 'readlines("big.txt")', 'readdlm("big.txt")',
                'include("big.txt")'):
        with pytest.raises(ZylaError) as info:
            _run(src)
        assert info.value.kind == "SystemError"
        assert "4096 bytes" in info.value.message and "ZYLA_MAX_READ" in info.value.hint
    monkeypatch.setenv("ZYLA_MAX_READ", "5000")
    assert _run('length(read("big.txt", String))') == 5000


def test_bytes_that_are_not_utf8_are_kept(work: Path) -> None:
    """Julia's String holds any bytes: a file that is not UTF-8 reads without a Python
    error, each bad byte one character, printed back as the same bytes and shown as
    `\\xff`; a program that includes it gets a ParseError at the byte."""
    (work / "bad.txt").write_bytes(b"ab\xffcd\n")
    (work / "bad.jl").write_bytes(b'x = 1\ny = "\xff"\n')
    assert _run('length(read("bad.txt", String))') == 6
    assert _run('repr(readlines("bad.txt")[1])') == '"ab\\xffcd"'
    (work / "show.jl").write_text('print(read("bad.txt", String))\n')
    res = subprocess.run(command() + ["run", "show.jl"], cwd=work, capture_output=True,
                         timeout=300)
    assert (res.returncode, res.stdout, res.stderr) == (0, b"ab\xffcd\n", b"")
    with pytest.raises(ZylaError) as info:
        _run('include("bad.jl")')
    assert (info.value.kind, info.value.span.line, info.value.span.col) == ("ParseError", 2, 6)
    with pytest.raises(ZylaError) as info:
        _run('readdlm("bad.txt")')
    assert info.value.message == 'readdlm: cannot parse "ab\\xffcd" in bad.txt as Float64'


def test_compiled_code_is_kept_only_in_a_private_folder(tmp_path: Path) -> None:
    """XLA's persistent cache holds machine code that runs as it is found: a folder that
    other users can write into (or whose parents they can) is not used."""
    from backend.compile import unsafe_folder

    mine = tmp_path / "mine" / "xla"
    mine.mkdir(parents=True, mode=0o700)
    assert unsafe_folder(str(mine)) is None
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    assert "writable by other users" in (unsafe_folder(str(shared)) or "")
    below = shared / "xla"
    below.mkdir(mode=0o700)
    assert "writable by other users" in (unsafe_folder(str(below)) or "")
    shared.chmod(0o1777)  # sticky, like /tmp: others cannot rename what is below
    assert unsafe_folder(str(below)) is None
