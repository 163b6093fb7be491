"""Layer 5, report and export: the ways a trained network leaves annc.

The text report of a run (:mod:`.report`), the HTML page (:mod:`.html_report`,
:mod:`.report_drawing`) and the ONNX export (:mod:`.onnx_export`).
"""
