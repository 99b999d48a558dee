"""crparse.outputs.replace: the one way crparse writes a file it owns."""

import os

import pytest

from crparse.outputs import replace


def test_writes_text_as_utf8_and_bytes_as_given(tmp_path):
    replace(tmp_path / "a.txt", "Lotus “Petal”")
    replace(tmp_path / "b.bin", b"\x00\xff")
    assert (tmp_path / "a.txt").read_bytes() == "Lotus “Petal”".encode()
    assert (tmp_path / "b.bin").read_bytes() == b"\x00\xff"


def test_a_symbolic_link_at_the_name_is_replaced_not_followed(tmp_path):
    victim = tmp_path / "victim"
    victim.write_text("keep")
    (tmp_path / "out.json").symlink_to(victim)
    replace(tmp_path / "out.json", "{}")
    assert victim.read_text() == "keep"
    assert not (tmp_path / "out.json").is_symlink()
    assert (tmp_path / "out.json").read_text() == "{}"


def test_a_hard_link_at_the_name_is_replaced_not_written_in_place(tmp_path):
    victim = tmp_path / "victim"
    victim.write_text("keep")
    os.link(victim, tmp_path / "out.json")
    replace(tmp_path / "out.json", "{}")
    assert victim.read_text() == "keep"


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path, monkeypatch):
    target = tmp_path / "cache.json"
    target.write_text("old")

    def broken(fd, mode):
        os.close(fd)
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fdopen", broken)
    with pytest.raises(OSError):
        replace(target, "new")
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cache.json"]


def test_the_umask_applies(tmp_path):
    old = os.umask(0o027)
    try:
        replace(tmp_path / "x", "y")
    finally:
        os.umask(old)
    assert (tmp_path / "x").stat().st_mode & 0o777 == 0o640


def test_a_name_as_long_as_the_system_allows_is_written(tmp_path):
    # the temporary was the name and 18 more characters: past NAME_MAX for a long name
    target = tmp_path / ("t" * 250)
    replace(target, "x")
    assert target.read_text() == "x"


def test_temporaries_are_told_by_name():
    from crparse.outputs import is_temporary

    assert is_temporary(".crparse-0123456789ab.tmp")
    assert not is_temporary(".crparse-kept.tmp") and not is_temporary("crparse-0123456789ab.tmp")


# -- what a refusal names: the user's file and the real cause ---------------------------------------


def test_a_failure_names_the_target_not_the_temporary(tmp_path):
    """os.replace's error named the temporary (.crparse-<hex>.tmp, gone by the time it was read)
    first: "crparse: docs: OUT/.crparse/.crparse-894e37e8b398.tmp: Is a directory"."""
    (tmp_path / "target").mkdir()
    with pytest.raises(IsADirectoryError) as caught:
        replace(tmp_path / "target", "x")
    assert caught.value.filename == str(tmp_path / "target") and caught.value.filename2 is None
    with pytest.raises(FileNotFoundError) as caught:  # the temporary was never made: its name, too
        replace(tmp_path / "missing" / "target", "x")
    assert caught.value.filename == str(tmp_path / "missing" / "target")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["target"]


@pytest.mark.parametrize("in_the_way, cause", [
    ("file", "{part} is a file, not a directory"),
    ("dangling link", "{part} is a symbolic link that leads nowhere"),
    ("fifo", "{part} is a FIFO, not a directory"),
])
def test_a_lock_under_something_not_a_directory_says_what_is_in_the_way(tmp_path, in_the_way, cause):
    """`--db FILE/store.sqlite` said "cannot take the lock file ...: File exists" (mkdir's word
    for a file where a directory goes)."""
    from crparse.errors import CrparseError
    from crparse.outputs import exclusive

    part = tmp_path / "part"
    if in_the_way == "file":
        part.write_text("x")
    elif in_the_way == "fifo":
        os.mkfifo(part)
    else:
        part.symlink_to(tmp_path / "nowhere")
    with pytest.raises(CrparseError) as caught, exclusive(part / "deeper" / ".lock", subject="the store", busy="", wait=0):
        pass
    message = str(caught.value)
    assert message.startswith("the store: cannot take the lock file") and "File exists" not in message, message
    assert message.endswith(cause.format(part=part)), message


def test_a_lock_file_that_is_a_link_says_so(tmp_path):
    from crparse.errors import CrparseError
    from crparse.outputs import exclusive

    (tmp_path / "elsewhere").write_text("not ours")
    (tmp_path / ".lock").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(CrparseError) as caught, exclusive(tmp_path / ".lock", subject="s", busy="", wait=0):
        pass
    assert "is a symbolic link (not followed)" in str(caught.value)
    assert (tmp_path / "elsewhere").read_text() == "not ours"


def test_the_cli_names_the_users_file(tmp_path):
    import subprocess
    import sys

    from small_releases import write_releases

    release = write_releases(tmp_path / "rel", 1) / "2020-01-01.txt"
    from crparse.site.release import fingerprint

    summary = tmp_path / "out" / ".crparse" / "summaries" / f"{fingerprint(release)}.json"
    summary.mkdir(parents=True)  # where the site's cache of the release goes
    run = {"check": False, "capture_output": True, "text": True, "timeout": 120, "env": os.environ | {"CRPARSE_JOBS": "1"}}
    done = subprocess.run([sys.executable, "-m", "crparse", "docs", str(release), "-o", str(tmp_path / "out")], **run)
    assert done.returncode == 2 and ".crparse-" not in done.stderr, done.stderr
    assert done.stderr == f"crparse: docs: {summary}: Is a directory\n"
    done = subprocess.run([sys.executable, "-m", "crparse", "index", str(release), "--db", f"{release}/store.sqlite"], **run)
    assert done.returncode == 2 and "File exists" not in done.stderr, done.stderr
    assert done.stderr.rstrip().endswith(f"{release} is a file, not a directory"), done.stderr


def test_emit_pytest_names_the_test_file_and_what_is_in_the_way(tmp_path, capsys):
    """--emit-pytest named DIR and "File exists" for a DIR that is a link leading nowhere, and DIR
    with "Is a directory" for a directory where the test file goes."""
    from small_releases import write_releases

    from crparse.cli.main import main

    release = write_releases(tmp_path / "rel", 1) / "2020-01-01.txt"
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    assert main(["examples", str(release), "--emit-pytest", str(tmp_path / "dangling")]) == 2
    err = capsys.readouterr().err
    assert err.rstrip().endswith(f"{tmp_path / 'dangling'} is a symbolic link that leads nowhere"), err
    (tmp_path / "tests" / "test_examples_2020_01_01.py").mkdir(parents=True)
    assert main(["examples", str(release), "--emit-pytest", str(tmp_path / "tests")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"crparse: {tmp_path / 'tests' / 'test_examples_2020_01_01.py'}: ") and "Is a directory" in err, err


def test_directories_a_thousand_deep_are_made_by_a_loop(tmp_path):
    """Path.mkdir(parents=True) recurses once a level: a store, a site or tests to write 1,000
    directories down ended with a RecursionError, exit 3 (sweep 41)."""
    from crparse.outputs import make_directories, remove_tree

    deep = tmp_path.joinpath(*["d"] * 1500)
    try:
        make_directories(deep)
        assert deep.is_dir()
        make_directories(deep)  # there already
        (tmp_path / "file").write_text("x")
        with pytest.raises(FileExistsError):
            make_directories(tmp_path / "file" / "below")
    finally:
        # gone by a loop too: pytest's own clean-up of old temporary directories recurses, and a
        # tree this deep left behind ended the next session with a RecursionError
        remove_tree(tmp_path / "d")
