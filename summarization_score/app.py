"""The summarization_score widget of its Hugging Face Space, on the Gradio of the card's `sdk_version` (6.31.0).

Locally, from the repository root: pip install gradio==6.31.0 && python summarization_score/app.py
"""

from pathlib import Path

import evaluate
import gradio as gr
from evaluate.utils import launch_gradio_widget

# evaluate's widget (evaluate 0.4.6) builds its form with gr.inputs.Dataframe and gr.outputs.Textbox. Gradio 4
# removed those two namespaces, and the Gradio 3 releases that have them need numpy 1, which today's datasets
# and pyarrow no longer run with. The same components are gr.Dataframe and gr.Textbox.
gr.inputs = gr.outputs = gr

# the folder of this file, so the module loads from a checkout as well as from its Space
module = evaluate.load(str(Path(__file__).resolve().parent))
launch_gradio_widget(module)
