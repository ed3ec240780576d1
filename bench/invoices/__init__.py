"""Real-invoice benchmark: a corpus of published sample invoices with ground truth (``corpus``),
a scorer (``score``) and a regex baseline (``baseline``). See README.md in this folder."""
