"""The console summary's arc-label line counts every kind and gives the Table 2 comparison on the §4 kinds."""
from entailgen.runners.summary import _stat_text


def test_arc_label_line_names_both_arc_counts():
    stats = {"labelled_arcs": 20, "entailed_arc_pct": 65.0, "table_2_labelled_arcs": 15, "majority_accuracy": 80.0,
             "lexical_match_accuracy": 60.0,
             "paper_table_2": {"majority_accuracy": 72.7, "lexical_match_accuracy": 74.2}}
    assert _stat_text("arc_labels", stats) == (
        "20 labelled arcs (every kind), 65.0% entailed; on the 15 arcs of the §4 kinds majority 80.0, lexical match "
        "60.0 (DAE Table 2: 72.7, 74.2)")


def test_arc_label_line_without_table_2_names_no_baseline():
    """document-arcs has none of the §4 kinds, so its stats hold no Table 2 keys and the line names none."""
    assert _stat_text("arc_labels", {"labelled_arcs": 275, "entailed_arc_pct": 67.64}) == (
        "275 labelled arcs, 67.64% entailed")
