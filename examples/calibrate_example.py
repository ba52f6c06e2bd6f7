"""Fit the verdicts to your own labels with `localjudge.calibrate`, on made-up rows, and score with the result.

Run from the repository root: python3 examples/calibrate_example.py
Prints the cross-validated agreement before and after, writes my_settings.json and scores two summaries with
the shipped settings and with the fitted ones. The rows below were made up for this example.
"""

import evaluate

import localjudge

# (source, faithful summary, wrong summary)
PAIRS = [
    ("The Harlow Bay council voted on Tuesday to build a pool. It will cost 3.2 million euros.",
     "Harlow Bay's council voted to build a pool costing 3.2 million euros.",
     "Harlow Bay's council voted to build a pool costing 5.8 million euros."),
    ("Mira Olsen won the Tarn marathon in 2 hours 31 minutes. She had never run the course before.",
     "Mira Olsen won the Tarn marathon, a course she had not run before.",
     "Mira Olsen came second in the Tarn marathon, a course she had not run before."),
    ("The Quillo pen records audio while you write. Tapping a word replays the audio from that moment.",
     "The Quillo pen records audio as you write and replays it when you tap a word.",
     "The Quillo pen transcribes audio as you write and replays it when you tap a word."),
    ("Brenmoor library opens at 10 a.m. on Saturdays. It is closed on Sundays.",
     "Brenmoor library opens at 10 a.m. on Saturdays and is shut on Sundays.",
     "Brenmoor library opens at 10 a.m. on Saturdays and on Sundays."),
    ("Kelpie Labs launched the Stridewell app in April 2023. It reached 40,000 paying users in a year.",
     "Kelpie Labs' Stridewell app, launched in April 2023, had 40,000 paying users a year later.",
     "Kelpie Labs' Stridewell app, launched in April 2021, had 40,000 paying users a year later."),
    ("The Ravenford ferry stops in winter because of storms. The bus runs all year.",
     "The Ravenford ferry does not run in winter, when storms come.",
     "The Ravenford ferry does not run in summer, when storms come."),
    ("Dunmere Bakery sold 1,200 loaves on its opening day. The owner, Ana Lee, trained in Lyon.",
     "Ana Lee, who trained in Lyon, sold 1,200 loaves on Dunmere Bakery's first day.",
     "Ana Lee, who trained in Lyon, sold 2,100 loaves on Dunmere Bakery's first day."),
    ("The Elmstead clinic now opens on Saturday mornings. Appointments must be booked online.",
     "Elmstead's clinic has started opening on Saturday mornings, with online booking required.",
     "Elmstead's clinic has started opening on Sunday mornings, with online booking required."),
    ("Harwick Rovers beat Castleford 3-1 at home. Their striker Tom Hale scored twice.",
     "Harwick Rovers won 3-1 at home against Castleford, with two goals from Tom Hale.",
     "Harwick Rovers won 3-1 away at Castleford, with two goals from Tom Hale."),
    ("Orla Tech's profit rose 8 percent last year. Sales in Asia fell for the first time.",
     "Orla Tech made 8 percent more profit last year, although its Asian sales dropped for the first time.",
     "Orla Tech made 8 percent more profit last year, thanks to record sales in Asia."),
    ("To descale the kettle, boil a mix of water and vinegar, then rinse it twice with clean water.",
     "Descale the kettle by boiling water with vinegar and rinsing it twice afterwards.",
     "Descale the kettle by boiling water with baking soda and rinsing it twice afterwards."),
    ("The new Tarn bridge is 240 metres long. It carries cyclists and walkers but no cars.",
     "Tarn's new 240-metre bridge is for cyclists and pedestrians only, not cars.",
     "Tarn's new 240-metre bridge carries cars as well as cyclists and pedestrians."),
]
RAG = [
    ("When does the Brenmoor pool open on Saturdays?", "8 a.m.",
     ["Brenmoor pool opens at 8 a.m. on Saturdays.", "Brenmoor library opens at 10 a.m. on Saturdays.",
      "Swimming lessons at Brenmoor pool are on Tuesdays."], [1, 0, 0]),
    ("Who designed the Halvering clock tower?", "Lydia Farrant.",
     ["Halvering town hall was built in 1884.", "The Halvering clock tower was designed by Lydia Farrant in 1902.",
      "Tours of the Halvering clock tower run monthly."], [0, 1, 0]),
]




def summary_rows():
    """Labelled rows: 1 faithful, 0 not. A real calibration wants a few dozen of your own; rows on the same source
    stay in one cross-validation fold."""
    rows = [{"summary": faithful, "contexts": [source], "label": 1} for source, faithful, _ in PAIRS]
    rows += [{"summary": wrong, "contexts": [source], "label": 0} for source, _, wrong in PAIRS]
    return rows  # 24 rows


if __name__ == "__main__":
    report = localjudge.calibrate("summarization_score", summary_rows(), path="my_settings.json", progress=False)
    summarization = evaluate.load("./summarization_score")
    inputs = {"summary": [PAIRS[0][1], PAIRS[0][2]], "contexts": [[PAIRS[0][0]]] * 2}
    shipped = summarization.compute(**inputs, final="min")
    fitted = summarization.compute(**inputs, final="min", settings="my_settings.json")
    print("alignment (faithful, wrong): shipped", shipped["alignment_scores"], "fitted", fitted["alignment_scores"])
