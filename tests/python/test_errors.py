"""Parse errors carry the file, line and column the CLI reports."""

import subprocess

import pytest

import tmin

BROKEN = [
    # (text, line, column) of the first error
    ("SetSocInfo([[0,2]],[[0,10]]\n", 2, 1),
    ("SetSocInfo([[0,2]],[[0,10]])\nAddOpInfo(1,1,0,[],[[1,0,x]],[])\n", 2, 26),
    ("SetSocInfo([[0,2]],[[0,10]])\nAddOpInfo(1,1,0,[],[[1,0,5]],[])\nGetInferenceScheResult([],[[1,1]])\n", 3, 32),
    ("Hello", 1, 1),
]


@pytest.mark.parametrize("text,line,column", BROKEN)
def test_parse_errors_are_located_as_the_cli_locates_them(cli, tmp_path, text, line, column):
    path = tmp_path / "broken.txt"
    path.write_text(text)
    with pytest.raises(tmin.ParseError) as err:
        tmin.Instance.read(path)
    e = err.value
    assert (e.file, e.line, e.column) == (str(path), line, column), e
    assert str(e) == f"{path}:{line}:{column}: {e.message}"
    out = subprocess.run([cli, "info", str(path)], capture_output=True, text=True)
    assert out.returncode == 2 and f"{path}:{line}:{column}: {e.message}" in out.stderr
    with pytest.raises(ValueError):  # a ParseError is a ValueError
        tmin.Instance.parse(text)


def test_a_missing_file_is_a_parse_error_at_line_0(tmp_path):
    with pytest.raises(tmin.ParseError) as err:
        tmin.Instance.read(tmp_path / "none.txt")
    assert err.value.line == 0 and err.value.file.endswith("none.txt")


def test_a_schedule_text_that_is_not_the_format_is_located(root):
    inst = tmin.Instance.read(root / "instances" / "example1.txt")
    with pytest.raises(tmin.ParseError) as err:
        tmin.check(inst, "[[1,1,1,0,0],\n [1,1,2,5]]")
    assert (err.value.line, err.value.column) == (2, 10)


def test_bad_arguments_are_value_errors(root):
    inst = tmin.Instance.read(root / "instances" / "example1.txt")
    for kwargs in ({"engine": "nope"}, {"time_limit": -1}, {"threads": 0}, {"rule": "nope"}):
        with pytest.raises(ValueError):
            tmin.solve(inst, **kwargs)
    with pytest.raises(ValueError, match="--tightness does not apply to --family packed"):
        tmin.gen("packed", tightness=0.5)
    with pytest.raises(ValueError, match="family"):
        tmin.gen("nope")
