"""The context_utilization widget of its Hugging Face Space.

Locally, from the repository root: pip install "gradio<4" && python context_utilization/app.py
"""

from pathlib import Path

import evaluate
from evaluate.utils import launch_gradio_widget

# the folder of this file, so the module loads from a checkout as well as from its Space
module = evaluate.load(str(Path(__file__).resolve().parent))
launch_gradio_widget(module)
