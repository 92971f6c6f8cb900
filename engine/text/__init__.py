"""Text: citations, sentence splitting, languages, claims and the rules that read text (no models)."""
