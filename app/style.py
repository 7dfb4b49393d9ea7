"""Shared look: one colour per vendor, the same on every page and in the briefs."""

VENDOR_COLOURS = {
    "NVIDIA": "#76B900",
    "AMD": "#ED1C24",
    "Intel": "#0071C5",
    "Google": "#FBBC04",
    "AWS": "#FF9900",
    "Qualcomm": "#3253DC",
}
