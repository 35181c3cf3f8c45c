"""The dataset report: a Hugging Face style card (README.md) and a static report.html with plots and drawn arcs."""
from entailgen.transforms.report.card import CARD
from entailgen.transforms.report.html import REPORT
from entailgen.transforms.report.write import ReportConfig, write_report

__all__ = ["CARD", "REPORT", "ReportConfig", "write_report"]
