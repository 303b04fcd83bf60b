"""VANTAGE-Bench task generators: rendered clips in a run store -> formats.vantage_item.VantageItem.

One module per task (Table 5, App. B); every answer comes from the simulation's ground
truth (the clip file's per-frame objects, the scene spec's timeline and looks), never from
pixels.
"""
