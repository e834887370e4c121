"""Stage 3, render: place the strings build decided into files; decides nothing."""
