"""The PAR sheet's cells (a figure as decimal and fraction, a plain table) and its later sections."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

from paytables.red_dog.analysis.par_sheet import ParSheet
from paytables.red_dog.analysis.rtp import decimal_string, fraction_string, sqrt_string
from service.cli import par_sheet_svg as svg


def dec(value: Fraction, places: int = 10) -> str:
    """Rounded half-even; zero as 0.0000000000, not 0E-10."""
    return f"{Decimal(decimal_string(value, places)):f}"


def pct(value: Fraction, places: int = 4) -> str:
    return f"{decimal_string(100 * value, places)}%"


def exact(value: Fraction) -> str:
    """A figure as a decimal and, under it, the exact fraction."""
    text = str(value.numerator) if value.denominator == 1 else fraction_string(value)
    return f"{dec(value)}<br><small>{text}</small>"


def table(head: list[str], rows: list[list[str]]) -> str:
    """A plain table (cells are HTML already): the borders by attribute, as a style would be refused."""
    cells = "".join(f"<th>{h}</th>" for h in head)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    frame = 'border="1" cellpadding="4" cellspacing="0"'
    return f"<table {frame}><thead><tr>{cells}</tr></thead><tbody>{body}</tbody></table>"


def convergence_section(sheet: ParSheet) -> str:
    o, n = sheet.optimal, sheet.never_raise
    rows = [
        [
            f"±{pct(mine.tolerance, 1)}",
            pct(mine.confidence, 0),
            f"{mine.z:.6f}",
            f"{mine.rounds:,}",
            f"{never.rounds:,}",
        ]
        for mine, never in zip(o.convergence, n.convergence, strict=True)
    ]
    sigma = float(o.rtp_variance) ** 0.5
    colours = (svg.BLUE, svg.VERMILION)  # the first two lines: the 0.5% tolerance at each confidence
    curves = [(pct(c.confidence, 0), c.z, colour) for c, colour in zip(o.convergence[:2], colours, strict=True)]
    return (
        "<h2>Rounds until the observed RTP settles</h2>"
        "<p>How many rounds of one bet each it takes for the observed RTP (paid over debited) to lie within the "
        "tolerance of the exact RTP with the given confidence: the figures RTP-monitoring alerts are set from. "
        "<strong>A normal approximation</strong> (the central limit theorem, with the delta method for the ratio) "
        "from the exact variance: one round adds a term of variance "
        f"{exact(o.rtp_variance)} to n times the observed RTP's error (standard deviation "
        f"{sqrt_string(o.rtp_variance, 6)}, optimal play), so n rounds need n &ge; (z &middot; &sigma; / tolerance)"
        "<sup>2</sup>. Rounds are taken as independent, as from a fresh shoe each; tolerances are in percentage "
        "points of RTP.</p>"
        + table(["Tolerance", "Confidence", "z (two-sided)", "Rounds, optimal raise", "Rounds, never raise"], rows)
        + svg.convergence("convergence", "Half-width of the interval around the exact RTP, optimal play", sigma, curves)
    )


def counting_section(sheet: ParSheet) -> str:
    seat = sheet.counting
    assert seat is not None
    rows = [
        [
            "House edge per ante, usual strategy",
            exact(-seat.usual_net),
            "raise on the spreads above, by one's own posts",
        ],
        [
            "House edge per ante, the shared deal",
            exact(sheet.optimal.house_edge),
            "the same, as the law of a seat's cards is",
        ],
        [
            "House edge per ante, counting seat",
            exact(-seat.counting_net),
            "raises exactly when the unseen cards favour it",
        ],
        ["What counting gains per ante", exact(seat.gain), "usual minus counting house edge"],
        ["Counting seat's RTP per total bet", exact(1 + seat.counting_net / seat.counting_bet), ""],
        ["Counting raises where the usual strategy calls", exact(seat.raises_where_usual_calls), "of hands"],
        ["Counting calls where the usual strategy raises", exact(seat.calls_where_usual_raises), "of hands"],
    ]
    return (
        f"<h2>A hand per seat: the counting player ({seat.seats} seats)</h2>"
        "<p>Each seat gets its own posts and third card from one shoe: first posts round the table, second posts, "
        "the pairs' third cards, the raise window, then the spreads' third cards. A seat that counts every card face "
        "up when the window opens (the other seats' posts and the pairs' third cards) and raises exactly when each "
        "unit wagered then has a positive expected net, gets the edge below.</p>"
        + table(["Figure", "Value", "Note"], rows)
    )


def method_section(sheet: ParSheet) -> str:
    return (
        "<h2>How the figures are made</h2><ul>"
        f"<li>Every ordered triple of ranks (first post, second post, third card) of a fresh {sheet.decks}-deck shoe, "
        "with its exact probability as three cards dealt without replacement, is settled by the service's own "
        "settlement function on a one-unit ante, raising the most allowed on the strategy's spreads. Consecutive "
        "posts settle without a third card.</li>"
        "<li>RTP is expected paid over expected debited; the house edge per initial ante is minus the expected net; "
        "the standard deviation per total bet is that per initial ante over the expected total bet.</li>"
        "<li>The decimals are the fractions rounded half-even (square roots from the exact variance).</li>"
        "<li>The convergence figures are a normal approximation, not exact: see that section.</li>"
        "<li>Not covered: players who play other strategies (the live report, <code>reddog report rtp</code>, "
        "compares with the expectation of the decisions actually taken), and several bets on one shared deal, "
        "which share their cards and so are not independent.</li></ul>"
    )
