"""The dataset report: a Hugging Face style card (README.md) and a static report.html with plots and drawn arcs."""
from entailgen.dataset.report.card import CARD
from entailgen.dataset.report.html import REPORT
from entailgen.dataset.report.write import ReportConfig, write_report

__all__ = ["CARD", "REPORT", "ReportConfig", "write_report"]
