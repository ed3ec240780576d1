"""Real documents nobody here wrote, with their ground truth (the PDFs beside this file)."""
