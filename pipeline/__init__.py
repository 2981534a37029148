"""Text processing between raw user text and the model, shared by the command-line tools and the service.

Sentence and clause segmentation, protected spans (placeholders for URLs, numbers, emoji, ...),
casing styles and HTML markup; whole files in ``pipeline.documents``. Nothing here imports Flask;
the model is reached only through ``model.inference.translator.Translator``.
"""
