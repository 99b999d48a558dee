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
