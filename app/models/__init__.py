"""Page models: pure functions that turn warehouse frames into the labelled tables and headline
figures the pages show. No Streamlit here, so every rule is unit-tested on small frames."""
