"""The .ann DSL: example specs, canonical formatting, located error messages."""
from pathlib import Path

import numpy as np
import pytest

from annc.core.errors import AnncError, SpecError
from annc.io.spec import LayerSpec, NetworkSpec, format_spec, load_spec, parse_spec
from conftest import assert_names

SPECS = Path(__file__).resolve().parents[2] / "specs"


def binary(n=5):
    return LayerSpec(n, "binary")


def errors(text, filename="t.ann"):
    """The SpecError raised by parsing ``text``."""
    with pytest.raises(SpecError) as info:
        parse_spec(text, filename)
    return info.value


def only_error(text):
    err = errors(text)
    assert len(err.diagnostics) == 1, str(err)
    return err.diagnostics[0]


def assert_error(text, line, column, message, source=None):
    """Exactly one error at ``line:column`` whose message contains ``message``."""
    d = only_error(text)
    assert (d.line, d.column) == (line, column), d.format()
    assert message in d.message, d.format()
    if source is not None:
        assert d.source_line == source
    return d


# ---------------------------------------------------------------------------
# Example specs
# ---------------------------------------------------------------------------

EXPECTED = {
    "xor.ann": NetworkSpec(5, (binary(),), LayerSpec(2, "linear")),
    "deep3.ann": NetworkSpec(5, (binary(), binary(), binary()), LayerSpec(2, "linear")),
    "relu.ann": NetworkSpec(5, (LayerSpec(3, "relu"),), LayerSpec(2, "linear"),
                            partitions=4),
    "output_only.ann": NetworkSpec(5, (), LayerSpec(2, "linear")),
    "xor_greedy.ann": NetworkSpec(5, (binary(), binary()), LayerSpec(2, "linear"),
                                  training="greedy"),
    "relu_grid.ann": NetworkSpec(5, (LayerSpec(3, "relu", weight_grid=9),),
                                 LayerSpec(2, "linear", weight_grid=9), loss="errors"),
    "realdata.ann": NetworkSpec(None, (LayerSpec(4, "binary"),), LayerSpec(2, "linear"), eps=0.001, eps_auto=True,
                                loss="errors", penalty="l0", penalty_weight=0.5),  # the default recipe
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_example_specs_parse(name):
    path = SPECS / name
    spec = load_spec(path)
    expected = EXPECTED[name]
    assert spec == NetworkSpec(**{**expected.__dict__, "source": str(path)})
    assert spec.text == path.read_text()
    assert spec.source == str(path)


def test_every_example_spec_is_tested():
    assert {p.name for p in SPECS.glob("*.ann")} == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_format_spec_round_trips_examples(name):
    spec = load_spec(SPECS / name)
    text = format_spec(spec)
    assert parse_spec(text, spec.source) == spec
    assert format_spec(parse_spec(text, spec.source)) == text


def test_format_spec_round_trips_everything():
    text = """
        input 7
        hidden 4 relu { weights [-2, 0.5]; M 12.5 }
        hidden 3 binary { bias [0, 1] }
        hidden 2 relu
        output 3 { M auto }
        weights [-1.5, 1.5]
        M 40
        eps 1e-3
        P 6
        loss hinge 0.25
        training greedy
        penalty l0 0.001
        max_weights 9
        symmetry count
    """
    spec = parse_spec(text, "all.ann")
    assert spec.hidden == (
        LayerSpec(4, "relu", (-2.0, 0.5), (-1.0, 1.0), 12.5),
        LayerSpec(3, "binary", (-1.5, 1.5), (0.0, 1.0), 40.0),
        LayerSpec(2, "relu", (-1.5, 1.5), (-1.0, 1.0), 40.0),
    )
    assert spec.output == LayerSpec(3, "linear", (-1.5, 1.5), (-1.0, 1.0), None)
    assert (spec.eps, spec.partitions, spec.loss, spec.margin) == (0.001, 6, "hinge", 0.25)
    assert (spec.training, spec.penalty, spec.penalty_weight, spec.max_weights) == ("greedy", "l0", 0.001, 9)
    assert spec.symmetry == "count"
    again = parse_spec(format_spec(spec), "all.ann")
    assert again == spec


def test_format_spec_is_canonical_text():
    spec = parse_spec("input 2; output 2; hidden 1 binary { M 3 }")
    assert format_spec(spec) == (
        "input 2\nhidden 1 binary { M 3 }\noutput 2\nweights [-1, 1]\nbias [-1, 1]\n"
        "M auto\neps 0.001\nloss errors\ntraining full\npenalty l0 0.5\nsymmetry none\nscale minmax\n")


def test_defaults():
    spec = parse_spec("input 3\noutput 2\n")
    # no loss named: the default recipe (errors, l0 at half an error per weight, eps 0.001)
    assert spec == NetworkSpec(3, (), LayerSpec(2, "linear"), loss="errors", penalty="l0", penalty_weight=0.5,
                               eps=0.001)
    assert (spec.eps, spec.partitions, spec.loss, spec.margin) == (0.001, 10, "errors", 1.0)
    named = parse_spec("input 3\noutput 2\nloss nll\n")
    assert named == NetworkSpec(3, (), LayerSpec(2, "linear"))  # a named loss: the dataclass defaults
    assert spec.output.big_m is None


def test_syntax_niceties():
    text = "# header\n\n  input 5 ; output 2   # trailing comment\r\n\n"
    spec = parse_spec(text)
    assert (spec.inputs, spec.classes) == (5, 2)
    spec = parse_spec("input +5\noutput 2\nweights [-.5, 5E-1]\neps 2.5e-2\nloss errors")
    assert spec.output.weight_bounds == (-0.5, 0.5)
    assert (spec.eps, spec.loss) == (0.025, "errors")


def test_layer_block_overrides_globals():
    spec = parse_spec("input 2\nhidden 2 binary {\n  weights [-3, 3]\n  M 7\n}\n"
                      "output 2\nbias [0, 2]\nM 9\n")
    assert spec.hidden[0] == LayerSpec(2, "binary", (-3.0, 3.0), (0.0, 2.0), 7.0)
    assert spec.output == LayerSpec(2, "linear", (-1.0, 1.0), (0.0, 2.0), 9.0)


def test_hinge_default_margin_and_penalty():
    spec = parse_spec("input 2\noutput 2\nloss hinge\npenalty l1 0\n")
    assert (spec.loss, spec.margin, spec.penalty, spec.penalty_weight) == \
        ("hinge", 1.0, "l1", 0.0)


# ---------------------------------------------------------------------------
# Source positions
# ---------------------------------------------------------------------------

POSITIONED = ("input 5\nhidden 3 relu { M 4; weights [-2, 2] }\n  hidden 2 binary\n"
              "output 2 { bias [0, 1] }\nweights [-1, 1]\nM 7; eps 0.1\nP 4\nloss hinge 0.5\n"
              "training greedy\npenalty l1 0.01\nsymmetry bias\n")


def test_every_setting_keeps_its_position():
    from annc.io.spec import Position
    spec = parse_spec(POSITIONED, "p.ann")
    assert spec.positions == {
        "input": Position(1, 1), "weights": Position(5, 1), "M": Position(6, 1),
        "eps": Position(6, 6), "P": Position(7, 1), "loss": Position(8, 1),
        "training": Position(9, 1), "penalty": Position(10, 1), "symmetry": Position(11, 1)}
    assert [layer.positions for layer in spec.layers] == [
        {"layer": Position(2, 1), "M": Position(2, 17), "weights": Position(2, 22)},
        {"layer": Position(3, 3)},
        {"layer": Position(4, 1), "bias": Position(4, 12)}]
    # a layer's own block setting first, then the top-level one; None: not written
    assert spec.position("M", 0) == Position(2, 17)
    assert spec.position("M", 1) == spec.position("M") == Position(6, 1)
    assert spec.position(None, 2) == Position(4, 1)
    assert spec.position("bias", 1) is None


def test_positions_are_not_part_of_equality_and_survive_pickling():
    import pickle
    spec = parse_spec(POSITIONED, "p.ann")
    bare = NetworkSpec(**{**spec.__dict__, "positions": {},
                          "hidden": tuple(LayerSpec(h.units, h.activation, h.weight_bounds,
                                                    h.bias_bounds, h.big_m) for h in spec.hidden)})
    assert bare == spec and hash(bare) == hash(spec)
    copy = pickle.loads(pickle.dumps(spec))
    assert copy == spec and copy.positions == spec.positions
    assert copy.hidden[0].positions == spec.hidden[0].positions


def test_a_layer_keeps_its_positions_in_another_spec():
    """Greedy training moves a layer into a spec of its own: it still points at its line."""
    from dataclasses import replace

    from annc.io.spec import locate
    spec = parse_spec(POSITIONED, "p.ann")
    step = replace(spec, hidden=(spec.hidden[0],))
    d = locate(step, "M", 0, "here")
    assert (d.line, d.column, d.source_line) == (2, 17, "hidden 3 relu { M 4; weights [-2, 2] }")
    d = locate(step, "bias", 1, "here")  # the output layer's own block
    assert (d.line, d.column) == (4, 12)


def test_a_spec_built_in_python_has_no_positions():
    from annc.io.spec import located, locate
    spec = NetworkSpec(3, (), LayerSpec(2, "linear"))
    assert spec.positions == {} and spec.position("input") is None
    assert located(spec, "input", None, "says input 3") == "<spec>: says input 3"
    assert locate(spec, "input", None, "says input 3").format() == "<spec>:1:1: error: says input 3"


def test_load_spec_missing_file(tmp_path):
    with pytest.raises(AnncError, match=r"nope\.ann: spec file not found"):
        load_spec(tmp_path / "nope.ann")


# ---------------------------------------------------------------------------
# Semantic errors: message, line, column and caret
# ---------------------------------------------------------------------------

def test_error_format_has_location_source_and_caret():
    err = errors("input 5\nhiden 5 binary\noutput 2\n")
    first, source, caret, count = str(err).split("\n")
    assert first.startswith("t.ann:2:1: error: ")  # the location, then the message
    assert_names(first, "'hiden'", "'hidden'")
    assert (source, caret, count) == ("    hiden 5 binary", "    ^", "1 error in spec")


def test_unknown_setting_without_suggestion():
    d = assert_error("input 5\noutput 2\nfoo 1\n", 3, 1, "unknown setting 'foo' (expected")
    assert "input, hidden, output" in d.message


def test_unknown_setting_case_suggestion():
    assert_error("input 5\noutput 2\nm 3\n", 3, 1, "unknown setting 'm' (did you mean 'M'?)")


def test_duplicate_setting():
    d = assert_error("input 5\noutput 2\neps 0.1\neps 0.2\n", 4, 1,
                     "duplicate setting 'eps' (first set at line 3)")
    assert d.format().endswith("    eps 0.2\n    ^")


def test_missing_output_and_input_left_to_the_data():
    """'output' is required; 'input' left out means 'input auto' (the data's width)."""
    err = errors("# nothing\nhidden 5 binary\n")
    msgs = [(d.line, d.column, d.message) for d in err.diagnostics]
    assert msgs == [(2, 16, "missing required setting 'output' (the number of classes, e.g. 'output 2')")]
    assert "1 error in spec" in str(err)
    assert parse_spec("hidden 5 binary\noutput 2\n").inputs is None


def test_wrong_number_of_values():
    d = assert_error("input 5 6\noutput 2\n", 1, 9, "'input' takes one integer, got 2 values")
    assert d.format().splitlines()[2] == "    " + " " * 8 + "^"
    assert_error("input\noutput 2\n", 1, 1, "'input' takes one integer, got no value")
    assert_error("input 5\nhidden 5\noutput 2\n", 2, 1,
                 "'hidden' takes a width and an activation (binary, relu or sign), got 1 value")
    assert_error("input 5\noutput 2\nweights\n", 3, 1,
                 "'weights' takes one interval [lo, hi], got no value")


def test_wrong_kind_of_value():
    assert_error("input five\noutput 2\n", 1, 7, "'input' must be an integer, got 'five'")
    assert_error("input 5\noutput 2\nweights 1\n", 3, 9,
                 "'weights' takes an interval [lo, hi], got 1")
    assert_error("input 5\noutput 2\neps [0, 1]\n", 3, 5,
                 "'eps' must be a number, got interval [0, 1]")


def test_width_below_one_and_classes_below_two():
    assert_error("input 0\noutput 2\n", 1, 7, "'input' must be at least 1, got 0")
    assert_error("input 5\nhidden -2 binary\noutput 2\n", 2, 8,
                 "'hidden' width must be at least 1, got -2")
    assert_error("input 5\noutput 1\n", 2, 8,
                 "'output' must be at least 2 (the number of classes), got 1")


def test_non_integer_width():
    assert_error("input 5.5\noutput 2\n", 1, 7, "'input' must be an integer, got 5.5")
    assert_error("input 5\nhidden 2e1 relu\noutput 2\n", 2, 8,
                 "'hidden' width must be an integer, got 2e1")


def test_unknown_activation():
    assert_error("input 5\nhidden 5 reul\noutput 2\n", 2, 10,
                 "unknown activation 'reul' (did you mean 'relu'?)")
    assert_error("input 5\nhidden 5 tanh\noutput 2\n", 2, 10,
                 "unknown activation 'tanh' (expected binary, relu or sign)")


def test_partitions():
    assert_error("input 5\nhidden 3 relu\noutput 2\nP 0\n", 4, 3, "'P' must be at least 1, got 0")
    assert_error("input 5\nhidden 3 relu\noutput 2\nP 2.5\n", 4, 3,
                 "'P' must be an integer, got 2.5")


def test_relu_only_setting_on_binary_net():
    assert_error("input 5\nhidden 5 binary\noutput 2\nP 4\n", 4, 1,
                 "'P' is only used after a ReLU layer; this net has none")


def test_eps_must_be_positive():
    assert_error("input 5\noutput 2\neps 0\n", 3, 5, "'eps' must be > 0, got 0")
    assert_error("input 5\noutput 2\neps -0.1\n", 3, 5, "'eps' must be > 0, got -0.1")


def test_interval_lower_above_upper():
    d = assert_error("input 5\noutput 2\nweights [2, 1]\n", 3, 10,
                     "lower bound 2 is above upper bound 1")
    assert d.format().splitlines()[1:] == ["    weights [2, 1]", "             ^"]
    assert_error("input 5\noutput 2 { bias [0.5, -0.5] }\n", 2, 18,
                 "lower bound 0.5 is above upper bound -0.5")


def test_big_m():
    assert_error("input 5\noutput 2\nM 0\n", 3, 3, "'M' must be > 0, got 0")
    assert_error("input 5\noutput 2 { M -4 }\n", 2, 14, "'M' must be > 0, got -4")
    assert_error("input 5\noutput 2\nM autp\n", 3, 3,
                 "'M' takes 'auto' or a number > 0, got 'autp' (did you mean 'auto'?)")


def test_greedy_needs_hidden_layer():
    assert_error("input 5\noutput 2\ntraining greedy\n", 3, 10,
                 "'training greedy' needs at least one hidden layer")
    assert_error("input 5\noutput 2\ntraining fast\n", 3, 10,
                 "unknown training 'fast' (expected full, greedy, ovo or batches)")


def test_symmetry_errors():
    assert_error("input 5\nhidden 2 binary\noutput 2\nsymmetry biases\n", 4, 10,
                 "unknown symmetry 'biases' (did you mean 'bias'?)")
    assert_error("input 5\nhidden 2 binary\noutput 2\nsymmetry\n", 4, 1,
                 "'symmetry' takes none, bias or count")
    assert_error("input 5\noutput 2\nsymmetry bias\n", 3, 10,
                 "'symmetry bias' orders the units of hidden layers; this net has none")


def test_hinge_margin_misuse():
    assert_error("input 5\noutput 2\nloss nll 2\n", 3, 10,
                 "'loss nll' takes no margin (only 'loss hinge' has one)")
    assert_error("input 5\noutput 2\nloss errors 1\n", 3, 13, "'loss errors' takes no margin")
    assert_error("input 5\noutput 2\nloss hinge 0\n", 3, 12,
                 "the hinge margin must be > 0, got 0")
    assert_error("input 5\noutput 2\nloss hing\n", 3, 6,
                 "unknown loss 'hing' (did you mean 'hinge'?)")


def test_penalty_errors():
    assert_error("input 5\noutput 2\npenalty l1\n", 3, 1,
                 "'penalty l1' needs a weight, e.g. 'penalty l1 0.01'")
    assert_error("input 5\noutput 2\npenalty l0 -1\n", 3, 12,
                 "the l0 penalty weight must be >= 0, got -1")
    assert_error("input 5\noutput 2\npenalty none 3\n", 3, 14, "'penalty none' takes no weight")


def test_layer_block_errors():
    assert_error("input 5\noutput 2 { wieghts [0, 1] }\n", 2, 12,
                 "unknown layer setting 'wieghts' (did you mean 'weights'?)")
    assert_error("input 5\noutput 2 { eps 3 }\n", 2, 12,
                 "unknown layer setting 'eps' (a layer block takes weights, bias or M; "
                 "'eps' goes at the top level)")
    assert_error("input 5\noutput 2 {\n  M 3\n  M 4\n}\n", 4, 3,
                 "duplicate setting 'M' (first set at line 3)")
    assert_error("input 5\neps 0.1 { M 2 }\noutput 2\n", 2, 9,
                 "'eps' takes no { } block (only 'hidden' and 'output' have layer settings)")


def test_huge_number():
    assert_error("input 5\noutput 2\neps 1e999\n", 3, 5, "number 1e999 is too large")


def test_tab_keeps_caret_aligned():
    d = only_error("input 5\n\toutput 2 3\n")
    assert (d.line, d.column) == (2, 11)
    assert d.format().splitlines()[1:] == ["     output 2 3", "              ^"]


def test_all_errors_reported_together():
    text = (
        "input 0\n"                     # 1: width < 1
        "hiden 5 binary\n"              # 2: unknown setting
        "hidden 0 binary\n"             # 3: width < 1
        "output 2 { wieghts [0, 1] }\n"  # 4: unknown layer setting
        "eps 0\n"                       # 5: eps <= 0
        "eps 0.1\n"                     # 6: duplicate
        "weights [1, -1]\n"             # 7: lower > upper
        "M -5\n"                        # 8: M <= 0
        "P 3\n"                         # 9: P on a binary-only net
        "loss nll 1\n"                  # 10: margin with nll
    )
    err = errors(text)
    lines = [d.line for d in err.diagnostics]
    assert lines == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], str(err)
    assert str(err).endswith("\n10 errors in spec")
    assert str(err).count("t.ann:") == 10


# ---------------------------------------------------------------------------
# Syntax errors
# ---------------------------------------------------------------------------

def test_syntax_error_unexpected_bracket():
    err = errors("input 5\noutput 2]\n")
    first, source, caret, count = str(err).split("\n")
    assert first.startswith("t.ann:2:9: error: ")
    assert_names(first, "']'")
    assert (source, caret, count) == ("    output 2]", "            ^", "1 error in spec")


def test_syntax_error_in_interval():
    assert_error("input 5\noutput 2\nweights [1 2]\n", 3, 12, "unexpected number 2, expected ','")
    assert_error("input 5\noutput 2\nweights [1,\n", 3, 12,
                 "unexpected end of line, expected a number")
    assert_error("input 5\noutput 2\nweights [-1, 1", 3, 15,
                 "unexpected end of file, expected ']'")


def test_syntax_error_bad_character():
    assert_error("input 5 @\noutput 2\n", 1, 9,
                 "unexpected character '@', expected a value or end of line")


def test_syntax_error_unclosed_block():
    assert_error("input 5\nhidden 5 binary {\n  M 3\noutput 2\n", 4, 9,
                 "unexpected end of file: missing '}' for the '{' at line 2, column 17")


def test_syntax_error_stray_closing_brace():
    assert_error("input 5\noutput 2 }\n", 2, 10, "unexpected '}' (no '{' is open)")


def test_syntax_error_brace_on_its_own_line():
    assert_error("input 5\nhidden 5 binary\n{ M 3 }\noutput 2\n", 3, 1,
                 "unexpected '{' at the start of a line")


def test_syntax_error_inside_block_mentions_brace():
    assert_error("input 5\noutput 2 { M 3 ] }\n", 2, 16,
                 "unexpected ']', expected a value, '}' or end of line")


def test_block_checked_even_when_its_statement_is_wrong():
    err = errors("input 5\nhidden 5 { M 0 }\noutput 2\n")
    assert [(d.line, d.column) for d in err.diagnostics] == [(2, 1), (2, 14)]
    assert_names(err.diagnostics[1].message, "'M'", "> 0", "0")


# ---------------------------------------------------------------------------
# Every error at once, also after a syntax error (issue 29)
# ---------------------------------------------------------------------------

def test_errors_after_a_syntax_error_are_reported_too():
    """Parsing resumes at the statement after a syntax error: syntax errors on several
    lines and the semantic errors of the statements that parse, in one message."""
    text = ("input 5\n"
            "hidden 0 binary\n"           # 2: width < 1 (a statement that parses)
            "weights [-1, 1\n"            # 3: syntax: no ']'
            "eps 0 # a comment; not a separator\n"  # 4: eps <= 0
            "bias [0 1]\n"                # 5: syntax: no ','
            "output 2; loss nl\n"         # 6: unknown loss, after a ';'
            "hidden 2 binary { M [1 }\n"  # 7: syntax inside a block
            "symmetry lex @\n"            # 8: a bad character
            "P 0\n")                      # 9: P < 1
    err = errors(text)
    found = [(d.line, d.column) for d in err.diagnostics]
    assert found == [(2, 8), (3, 15), (4, 5), (5, 9), (6, 16), (7, 24), (8, 14), (9, 3)], str(err)
    messages = [d.message for d in err.diagnostics]
    assert_names(messages[1], "end of line", "']'")
    assert_names(messages[3], "1", "','")
    assert messages[5] == "unexpected '}', expected ','"
    assert messages[6].startswith("unexpected character '@'")
    assert "'eps' must be > 0" in messages[2] and "loss" in messages[4] and "'P'" in messages[7]
    assert str(err).endswith("\n8 errors in spec") and str(err).count("t.ann:") == 8
    assert err.diagnostics[4].source_line == "output 2; loss nl"  # the whole line under the caret


def test_no_error_is_made_up_for_a_statement_that_does_not_parse():
    """The statement with a syntax error may be the one a check across statements looks
    for ('input', a ReLU layer for 'P'): those checks wait until the spec parses."""
    err = errors("input 5 @\nhidden 3 relu ]\noutput 2\nP 4\n")
    assert [(d.line, d.column) for d in err.diagnostics] == [(1, 9), (2, 15)], str(err)


def test_an_unclosed_block_ends_the_recovery():
    """An unclosed '{' takes the rest of the file: its error, at the end, is the last."""
    err = errors("input 0\nhidden 5 binary {\n  M 0\noutput 2\n")
    assert [(d.line, d.column) for d in err.diagnostics] == [(1, 7), (4, 9)], str(err)
    assert_names(err.diagnostics[1].message, "'}'", "line 2, column 17")


def test_max_weights_needs_the_l0_penalty_and_a_whole_number():
    """'max_weights K' counts the l0 penalty's non-zero weights: the default recipe's l0, or a written one."""
    assert parse_spec("input 2\nhidden 2 binary\noutput 2\nmax_weights 0\n").max_weights == 0
    assert parse_spec("input 2\noutput 2\nloss errors\npenalty l0 0.1\nmax_weights 3\n").max_weights == 3
    assert parse_spec("input 2\noutput 2\n").max_weights is None
    for text, message in [("loss errors\nmax_weights 3", "this spec's penalty is none"),
                          ("penalty l1 0.1\nmax_weights 3", "this spec's penalty is l1"),
                          ("max_weights -1", "must be at least 0"), ("max_weights 2.5", "must be an integer"),
                          ("max_weights 1 2", "one integer")]:
        with pytest.raises(SpecError, match=message):
            parse_spec("input 2\nhidden 2 binary\noutput 2\n" + text + "\n")


def test_a_python_spec_with_max_weights_and_another_penalty_is_refused():
    from annc.core.errors import ModelError
    from annc.formulations import formulate
    from annc.io.problem import make_problem
    import dataclasses
    bad = dataclasses.replace(parse_spec("input 2\noutput 2\nloss errors\npenalty l1 0.1\n"), max_weights=1)
    with pytest.raises(ModelError, match="max_weights 1 bounds"):
        formulate(make_problem(bad, np.array([[0.0, 1.0], [1.0, 0.0]]), np.array([0, 1]), [0, 1]))


@pytest.mark.parametrize("how", [dict(greedy=True), dict(ensemble="ovo"), dict(batches=2)])
def test_max_weights_is_refused_where_several_mips_make_the_network(how):
    """Greedy layers, ovo pairs and batches each solve their own MIP: a budget per MIP is not the
    network's, so annc refuses it before any work (its UsageError)."""
    from annc.app.api import train
    from annc.core.errors import UsageError
    X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]] * 3)
    y = np.array([0, 1, 1, 0] * 3)
    spec = "input 2\nhidden 2 binary\noutput 2\nmax_weights 4\n"
    with pytest.raises(UsageError, match="max_weights 4"):
        train(spec, (X, y), time_limit=5, out_dir=None, **how)
