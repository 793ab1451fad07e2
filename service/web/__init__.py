"""The pages people use (the recall page today): HTML, styles, scripts and the words they show; below the API."""
