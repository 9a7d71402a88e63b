"""Chapter 2: models, parameters, loss, training.

Claims, numbered as the output blocks (all of them the book's own computations):
  [1] A model with two parameters, q(y = 1 | x) = sigmoid(a x + b), scored in bits (Chapter 3):
      at a = b = 0 every prediction is 1/2, so the empirical risk on any data is exactly 1 bit.
      Data: N = 200 points (seed 11), x uniform on the nine values -2, -1.5, ..., 2 (each with
      probability 1/9), y = 1 with probability sigmoid(2 x - 1), the true parameters a = 2,
      b = -1; the population risk is an exact sum over the nine values. The
      training loss of the true parameters on this sample (0.4219) is below their population
      risk (0.4970): the sample luck of the true parameters, a model fixed before the data.
  [2] The gradient of the empirical risk, from calculus, agrees with central finite differences
      to better than 1e-6.
  [3] Gradient descent (learning rate 1.0, bits): the first steps printed one by one, then steps
      10, 20, 50, 100, 500; the empirical risk falls at every one of the first 50 steps and
      never rises; after 500 steps the gradient is below 1e-3. The fitted model's gap,
      population risk minus training loss, is the sum of three parts: the sample's luck (the
      true parameters' population risk minus their training loss), the fitting (their training
      loss minus the fitted one) and the excess (the fitted parameters' population risk minus
      the true parameters'). The parts, rounded as printed, add to the printed gap up to a
      rounding residual, which is printed.
  [4] Stochastic gradient descent (batches of 10, seed 12): the same number of steps, noisier,
      ending above gradient descent's risk, at a twentieth of the work per step; at equal work
      (500 x 10 points = 25 full-batch steps) gradient descent is lower, and SGD's final risk
      over 100 seeds (3000 to 3099) lies more than 2 standard errors above it. At a smaller
      budget (40 steps, 400 points read = 2 full-batch steps) the order reverses: SGD, over the
      same seeds, lies more than 2 standard errors below gradient descent.
  [5] Overfitting: polynomials of degree 0 to 11 fitted by least squares to N = 12 nearly evenly
      spaced noisy points (noise seed 13) of sin(pi x); the training error falls to zero at
      degree 11 while the exact population error (a finite sum over the 201-point population:
      x uniform on the grid -1, -0.99, ..., 1, y = sin(pi x) plus fresh noise of the same sd)
      is smallest at degree 3 and 33.25 at the top. The training inputs run from -0.95 to
      0.95; most of degree 11's squared error beyond the noise lies on the ten grid points
      outside that range, and its error on the points inside is still more than ten times
      degree 3's.
  [6] Luck and fitting, separated: over 1,000 fresh samples of N = 200 points (seeds 1000 to
      1999), the luck, with the sign of [3] (population risk of the true parameters minus their
      training loss), averages to zero within 2 standard errors (luck has no direction), while
      the minimum of the training
      loss lies below the true parameters' training loss by about D / (2 N ln 2) bits with
      D = 2 parameters (the classical optimism of a maximum-likelihood fit), within 2 standard
      errors. The fitted parameters also lose on the population: their population risk exceeds
      the true parameters' by more than 2 standard errors, and by a little more than the fitting
      gain (paired, more than 2 standard errors), so the fitted model's whole gap,
      population risk minus training loss, averages about D / (N ln 2), twice the in-sample
      formula, within 2 standard errors. The mean gap is the sum of the three mean parts,
      which add exactly to the digits printed. That test is weak: the luck's mean is exactly
      zero, and its noise widens the gap's standard error about fourfold. Without it, fitting
      plus excess lies above D / (N ln 2) by more than 2 standard errors, and the excess alone
      above its own limit D / (2 N ln 2) by more than 2: at N = 200 these two exceed their
      asymptotic formulas (the fitting alone does not, beyond 2 standard errors).
Figure: ch02_training.png (descent paths on the loss surface; train and population error
against degree).
Runs in a few seconds. Every value the chapter quotes is printed through `glue(name, ...)`
(script_glue.py), so that the page refers to it by name.
"""

from __future__ import annotations

import itertools
import math

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
from script_glue import glue
from script_io import save_figure

X_VALUES = np.linspace(-2.0, 2.0, 9)  # the population of inputs, uniform
TRUE_A, TRUE_B = 2.0, -1.0
N_TRAIN, SEED_DATA = 200, 11
LEARNING_RATE, STEPS = 1.0, 500
BATCH, SEED_SGD = 10, 12
SEED_SGD_REPEATS, SGD_REPEATS = 3000, 100  # the repeated SGD runs of [4]
SMALL_STEPS = 40  # [4]'s smaller budget: 40 x 10 = 400 points read = 2 full-batch steps
POLY_N, POLY_SEED, NOISE_SD, MAX_DEGREE = 12, 13, 0.3, 11
POLY_POPULATION = np.linspace(-1.0, 1.0, 201)  # x uniform on this grid; y = sin(pi x) + noise
REPEATS, SEED_REPEATS = 1000, 1000  # block [6]: samples with seeds 1000 .. 1999


def sigmoid(u: np.ndarray) -> np.ndarray:
    """1 / (1 + e^-u), computed without overflow for large |u|."""
    return np.exp(-np.logaddexp(0.0, -u))


def risk_bits(a: float, b: float, x: np.ndarray, y: np.ndarray) -> float:
    """Empirical risk: mean over the points of -log2 q(y | x) with q(1 | x) = sigmoid(a x + b)."""
    u = a * x + b
    # -ln q(y|x) = ln(1 + e^{-u}) for y = 1 and ln(1 + e^{u}) for y = 0
    nats = np.where(y == 1, np.logaddexp(0.0, -u), np.logaddexp(0.0, u))
    return float(nats.mean() / math.log(2))


def gradient_bits(a: float, b: float, x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """d risk / d(a, b) = mean((q - y) (x, 1)) / ln 2."""
    err = sigmoid(a * x + b) - y
    return float((err * x).mean() / math.log(2)), float(err.mean() / math.log(2))


def population_risk_bits(a: float, b: float) -> float:
    """Exact expected loss: x uniform on X_VALUES, y ~ Bernoulli(sigmoid(TRUE_A x + TRUE_B))."""
    p_true = sigmoid(TRUE_A * X_VALUES + TRUE_B)
    u = a * X_VALUES + b
    nats = p_true * np.logaddexp(0.0, -u) + (1 - p_true) * np.logaddexp(0.0, u)
    return float(nats.mean() / math.log(2))


def draw_data(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """N_TRAIN points: x uniform on X_VALUES, y = 1 with the true model's probability."""
    x = rng.choice(X_VALUES, size=N_TRAIN)
    y = (rng.random(N_TRAIN) < sigmoid(TRUE_A * x + TRUE_B)).astype(np.int64)
    return x, y


def descend(x: np.ndarray, y: np.ndarray, rng: np.random.Generator | None,
            steps: int = STEPS) -> list[tuple[float, float]]:
    """Parameters after each step from (0, 0): full-batch if rng is None, else batches of BATCH."""
    a = b = 0.0
    path = [(a, b)]
    for _ in range(steps):
        if rng is None:
            ga, gb = gradient_bits(a, b, x, y)
        else:
            idx = rng.choice(len(x), size=BATCH, replace=False)
            ga, gb = gradient_bits(a, b, x[idx], y[idx])
        a, b = a - LEARNING_RATE * ga, b - LEARNING_RATE * gb
        path.append((a, b))
    return path


def fit_newton(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """The minimum of the training loss, by Newton's method from (0, 0) (the loss is convex)."""
    theta = np.zeros(2)
    design = np.stack([x, np.ones_like(x)], axis=1)
    for _ in range(30):
        q = sigmoid(design @ theta)
        grad = design.T @ (q - y) / len(x)
        hess = (design * (q * (1 - q))[:, None]).T @ design / len(x)
        theta = theta - np.linalg.solve(hess, grad)
    assert max(abs(g) for g in gradient_bits(*theta, x, y)) < 1e-9
    return float(theta[0]), float(theta[1])


def sum_text(total: float, parts: list[tuple[str, float]], key: str) -> str:
    """'luck 0.0750 + fitting 0.0035 + excess 0.0037 = 0.0822 ...': the parts as printed (4
    decimals), their sum, and the rounding residual against the printed gap when there is one.
    The values are glued as `{key}_luck`, ..., `{key}_sum`, `{key}_residual` and `{key}_gap`."""
    shown = sum(float(f"{value:.4f}") for _, value in parts)
    terms = " + ".join(f"{name} {glue(f'{key}_{name}', value, '.4f')}" for name, value in parts)
    residual = float(f"{total:.4f}") - shown
    if abs(residual) < 5e-9:
        return f"{terms} = {glue(f'{key}_gap', total, '.4f')}, the printed gap exactly"
    sign = "+" if residual > 0 else "-"  # the residual is glued without its sign: its size
    return (f"{terms} = {glue(f'{key}_sum', shown, '.4f')} as printed; the remaining "
            f"{sign}{glue(f'{key}_residual', abs(residual), '.4f')} of the gap "
            f"{glue(f'{key}_gap', total, '.4f')} is rounding")


def luck_and_fitting() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per fresh sample: (population risk of the true parameters - their training loss,
    minimum of the training loss - training loss at the true parameters, population risk of
    the fitted parameters - population risk of the true parameters), in bits."""
    best = population_risk_bits(TRUE_A, TRUE_B)
    luck, fitting, excess = [], [], []
    for seed in range(SEED_REPEATS, SEED_REPEATS + REPEATS):
        x, y = draw_data(np.random.default_rng(seed))
        at_true = risk_bits(TRUE_A, TRUE_B, x, y)
        fitted = fit_newton(x, y)
        luck.append(best - at_true)
        fitting.append(risk_bits(*fitted, x, y) - at_true)
        excess.append(population_risk_bits(*fitted) - best)
    return np.array(luck), np.array(fitting), np.array(excess)


def poly_errors(rng: np.random.Generator) -> tuple[list[tuple[int, float, float]], dict]:
    """(degree, train MSE, population MSE) for least-squares polynomials of degree 0..11."""
    # nearly evenly spaced inputs from the population grid (index gaps of 17 or 18), from
    # -0.95 to 0.95: the five grid points at each end lie beyond the outermost input
    x = POLY_POPULATION[np.round(np.linspace(5, 195, POLY_N)).astype(int)]
    y = np.sin(np.pi * x) + NOISE_SD * rng.standard_normal(POLY_N)
    rows, fits = [], {}
    for degree in range(MAX_DEGREE + 1):
        fit = np.polynomial.Polynomial.fit(x, y, degree, domain=[-1.0, 1.0])
        train = float(np.mean((fit(x) - y) ** 2))
        # E[(sin(pi x) + noise - fit(x))^2] = noise variance + mean over the grid of the bias^2
        population = NOISE_SD**2 + float(np.mean((np.sin(np.pi * POLY_POPULATION)
                                                   - fit(POLY_POPULATION)) ** 2))
        rows.append((degree, train, population))
        fits[degree] = fit
    return rows, {"x": x, "y": y, "fits": fits}


def draw_figure(x: np.ndarray, y: np.ndarray, gd: list, sgd: list,
                rows: list[tuple[int, float, float]], best: float) -> None:
    """Top: loss contours with the two descent paths. Bottom: train and population error."""
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(5.5, 9.0))
    slopes, bs = np.linspace(-0.5, 3.0, 120), np.linspace(-2.5, 1.0, 120)
    grid = np.array([[risk_bits(a, b, x, y) for a in slopes] for b in bs])
    levels = best + np.array([0.005, 0.02, 0.05, 0.1, 0.2, 0.35, 0.5])
    contours = top.contour(slopes, bs, grid, levels=levels, colors="0.6", linewidths=0.8)
    # the two innermost levels lie under the stochastic path: label only the outer ones
    top.clabel(contours, levels=contours.levels[2:], fmt="%.2f", fontsize=10)
    gd_arr, sgd_arr = np.array(gd), np.array(sgd)
    top.plot(sgd_arr[:, 0], sgd_arr[:, 1], color="#E69F00", lw=0.8, alpha=0.9,
             label="stochastic (batches of 10)")
    top.plot(gd_arr[:, 0], gd_arr[:, 1], color="#0072B2", lw=1.8, label="gradient descent")
    top.plot(gd_arr[:11, 0], gd_arr[:11, 1], "o", color="#0072B2", ms=3.5)
    top.plot([0.0], [0.0], "ks", ms=6, label="start (0, 0): 1 bit")
    top.plot([TRUE_A], [TRUE_B], "*", color="#D55E00", ms=12, label="true parameters")
    top.set_xlabel("a")
    top.set_ylabel("b")
    top.set_title("Empirical risk (bits) and two descents")
    top.legend(frameon=False, loc="upper left")

    degrees = [r[0] for r in rows]
    bottom.semilogy(degrees, [max(r[1], 1e-6) for r in rows], "o-", color="#0072B2",
                    label="training error (12 points;\nbelow 1e-6 drawn at 1e-6)")
    bottom.semilogy(degrees, [r[2] for r in rows], "s-", color="#D55E00",
                    label="population error (exact)")
    bottom.axhline(NOISE_SD**2, color="0.4", ls=":", lw=1.0, label="noise floor 0.09")
    bottom.set_xlabel("polynomial degree (parameters - 1)")
    bottom.set_ylabel("mean squared error")
    bottom.set_title("Training error falls; population error turns up")
    bottom.legend(frameon=False, loc="upper left")
    fig.tight_layout()
    save_figure(fig, "ch02_training.png")
    plt.close(fig)


def main() -> None:
    print("Chapter 2 -- models, parameters, loss, training (ch02_models_training.py)")
    x, y = draw_data(np.random.default_rng(SEED_DATA))
    start = risk_bits(0.0, 0.0, x, y)
    print(f"[1] model q(y=1|x) = sigmoid(a x + b); N = {glue('n_train', N_TRAIN)} points "
          f"(seed {glue('seed_data', SEED_DATA)}), {glue('positives', int(y.sum()))} with y = 1")
    values = ", ".join(glue(f"x_value_{i}", v, "g") for i, v in enumerate(X_VALUES))
    p_true = sigmoid(TRUE_A * X_VALUES + TRUE_B)
    print(f"    population: x uniform on the {glue('x_count', len(X_VALUES))} values {values} "
          f"(probability {glue('x_probability', f'1/{len(X_VALUES)}')} each); y = 1 with "
          f"probability sigmoid({glue('sigmoid_a', TRUE_A, 'g')} x - "
          f"{glue('sigmoid_minus_b', -TRUE_B, 'g')}), "
          f"from {glue('p_true_first', p_true[0], '.4f')} at x = "
          f"{glue('p_true_x_first', X_VALUES[0], 'g')} to {glue('p_true_last', p_true[-1], '.4f')}"
          f" at x = {glue('p_true_x_last', X_VALUES[-1], 'g')}")
    print(f"    empirical risk at a = b = {glue('start_ab', 0)}: "
          f"{glue('start_risk', start, '.4f')} bits (every prediction is "
          f"{glue('start_prediction', '1/2')})")
    print(f"    population risk: at (0, 0) "
          f"{glue('start_population', population_risk_bits(0.0, 0.0), '.4f')} bits; at the "
          f"true (a, b) = ({glue('true_a', TRUE_A, 'g')}, {glue('true_b', TRUE_B, 'g')}) "
          f"{glue('true_population', population_risk_bits(TRUE_A, TRUE_B), '.4f')} bits")
    at_true = risk_bits(TRUE_A, TRUE_B, x, y)
    print(f"    empirical risk at the true (a, b) on this sample: "
          f"{glue('true_train', at_true, '.4f')} bits "
          f"({glue('luck_sample', population_risk_bits(TRUE_A, TRUE_B) - at_true, '.4f')} below "
          f"its population risk: sample luck)")
    assert abs(start - 1.0) < 1e-12
    assert at_true < population_risk_bits(TRUE_A, TRUE_B)  # a lucky sample, for a fixed model

    ga, gb = gradient_bits(0.5, 0.5, x, y)
    h = 1e-5
    fa = (risk_bits(0.5 + h, 0.5, x, y) - risk_bits(0.5 - h, 0.5, x, y)) / (2 * h)
    fb = (risk_bits(0.5, 0.5 + h, x, y) - risk_bits(0.5, 0.5 - h, x, y)) / (2 * h)
    print(f"[2] gradient at (a, b) = ({glue('grad_at_a', 0.5)}, {glue('grad_at_b', 0.5)}): "
          f"formula ({glue('grad_a', ga, '.4f')}, {glue('grad_b', gb, '.4f')}); central finite "
          f"differences agree to better than {glue('grad_agreement', '1e-6')}")
    assert abs(ga - fa) < 1e-6 and abs(gb - fb) < 1e-6

    gd = descend(x, y, None)
    risks = [risk_bits(a, b, x, y) for a, b in gd]
    print(f"[3] gradient descent, learning rate {glue('learning_rate', LEARNING_RATE, 'g')}, "
          "from (0, 0)")
    for step in (*range(0, 6), 10, 20, 50, 100, 500):
        a, b = gd[step]
        print(f"    step {glue(f'gd_step_{step}', step, '>3')}: a = "
              f"{glue(f'gd_a_{step}', a, '+.4f')}, b = {glue(f'gd_b_{step}', b, '+.4f')}, "
              f"empirical risk {glue(f'gd_risk_{step}', risks[step], '.4f')} bits, population "
              f"risk {glue(f'gd_population_{step}', population_risk_bits(a, b), '.4f')}")
    assert all(a > c for a, c in itertools.pairwise(risks[:51]))  # falls at every early step
    assert all(a >= c - 1e-12 for a, c in itertools.pairwise(risks))  # and never rises
    final_ga, final_gb = gradient_bits(*gd[-1], x, y)
    print(f"    gradient after {glue('gd_steps', STEPS)} steps: below "
          f"{glue('gd_final_gradient', '1e-3')} in both coordinates")
    assert abs(final_ga) < 1e-3 and abs(final_gb) < 1e-3
    assert risks[-1] < population_risk_bits(*gd[-1])  # the fitted model flatters itself
    print(f"    below the true parameters' {glue('fit_true_train', at_true, '.4f')} on the same "
          f"sample by {glue('fitting', at_true - risks[-1], '.4f')} bits (fitting); "
          f"{glue('fitting_part', at_true - risks[-1], '.4f')} of the "
          f"{glue('gap_to_best', population_risk_bits(TRUE_A, TRUE_B) - risks[-1], '.4f')}-bit "
          f"gap to the best population risk")
    assert 0 < at_true - risks[-1] < 0.1 * (population_risk_bits(TRUE_A, TRUE_B) - risks[-1])
    best = population_risk_bits(TRUE_A, TRUE_B)
    fitted_population = population_risk_bits(*gd[-1])
    gap, luck_here = fitted_population - risks[-1], best - at_true
    excess_here = fitted_population - best
    print(f"    the fitted model's gap, population risk "
          f"{glue('fitted_population', fitted_population, '.4f')} minus training "
          f"loss {glue('fitted_train', risks[-1], '.4f')}: {glue('gap', gap, '.4f')} bits")
    print(f"    luck (the true parameters' population risk minus their training loss) "
          f"{glue('luck', luck_here, '.4f')}; excess (the fitted parameters' population risk "
          f"minus the true parameters') {glue('excess', excess_here, '.4f')}")
    parts_here = [("luck", luck_here), ("fitting", at_true - risks[-1]), ("excess", excess_here)]
    print(f"    gap = {sum_text(gap, parts_here, 'parts')} (unrounded, the identity holds to below "
          "1e-12)")
    assert abs(gap - (luck_here + (at_true - risks[-1]) + excess_here)) < 1e-12
    assert excess_here > 0

    sgd = descend(x, y, np.random.default_rng(SEED_SGD))
    sgd_risks = [risk_bits(a, b, x, y) for a, b in sgd]
    rises = sum(1 for a, c in itertools.pairwise(sgd_risks) if c > a)
    a, b = sgd[-1]
    print(f"[4] stochastic gradient descent, batches of {glue('sgd_batch', BATCH)} of the "
          f"{glue('sgd_n', N_TRAIN)} points (seed {glue('sgd_seed', SEED_SGD)}), "
          f"{glue('sgd_steps', STEPS)} steps")
    print(f"    final a = {glue('sgd_a', a, '+.4f')}, b = {glue('sgd_b', b, '+.4f')}, empirical "
          f"risk {glue('sgd_risk', sgd_risks[-1], '.4f')} bits (gradient descent: "
          f"{glue('sgd_gd_risk', risks[-1], '.4f')})")
    print(f"    the empirical risk rose on {glue('sgd_rises', rises)} of "
          f"{glue('sgd_rises_of', STEPS)} steps; each step read {glue('sgd_read', BATCH)} points "
          f"instead of {glue('sgd_read_instead', N_TRAIN)}")
    assert 0 < sgd_risks[-1] - risks[-1] < 0.02 and rises > 0
    equal_steps = STEPS * BATCH // N_TRAIN  # full-batch steps that read as many points
    finals = np.array([risk_bits(*descend(x, y, np.random.default_rng(seed))[-1], x, y)
                       for seed in range(SEED_SGD_REPEATS, SEED_SGD_REPEATS + SGD_REPEATS)])
    sgd_mean = float(finals.mean())
    sgd_se = float(finals.std(ddof=1)) / math.sqrt(SGD_REPEATS)
    print(f"    equal work: {glue('equal_sgd_steps', STEPS)} x {glue('equal_batch', BATCH)} = "
          f"{glue('equal_points', STEPS * BATCH, ',')} points read = "
          f"{glue('equal_steps', equal_steps)} full-batch steps; gradient descent at step "
          f"{glue('equal_gd_step', equal_steps)}: "
          f"{glue('equal_gd_risk', risks[equal_steps], '.4f')} bits")
    print(f"    SGD's final risk over {glue('repeat_seeds', SGD_REPEATS)} seeds "
          f"({glue('repeat_seed_first', SEED_SGD_REPEATS)} to "
          f"{glue('repeat_seed_last', SEED_SGD_REPEATS + SGD_REPEATS - 1)}): "
          f"{glue('repeat_mean', sgd_mean, '.4f')} +- {glue('repeat_se', sgd_se, '.4f')} (SE), "
          f"{glue('repeat_z', (sgd_mean - risks[equal_steps]) / sgd_se, '.1f')} SE above "
          "gradient descent at equal work")
    assert equal_steps == 25
    assert sgd_risks[-1] > risks[equal_steps]
    assert sgd_mean - risks[equal_steps] > 2 * sgd_se  # worse even per point read, here
    small_steps = SMALL_STEPS * BATCH // N_TRAIN
    small = np.array([risk_bits(*descend(x, y, np.random.default_rng(seed), SMALL_STEPS)[-1], x, y)
                      for seed in range(SEED_SGD_REPEATS, SEED_SGD_REPEATS + SGD_REPEATS)])
    small_mean = float(small.mean())
    small_se = float(small.std(ddof=1)) / math.sqrt(SGD_REPEATS)
    print(f"    a smaller budget: {glue('small_sgd_steps', SMALL_STEPS)} x "
          f"{glue('small_batch', BATCH)} = {glue('small_points', SMALL_STEPS * BATCH)} points "
          f"read = {glue('small_steps', small_steps)} full-batch steps; gradient descent at step "
          f"{glue('small_gd_step', small_steps)}: "
          f"{glue('small_gd_risk', risks[small_steps], '.4f')} bits; SGD after "
          f"{glue('small_sgd_after', SMALL_STEPS)} steps, same seeds: "
          f"{glue('small_mean', small_mean, '.4f')} +- {glue('small_se', small_se, '.4f')} (SE), "
          f"{glue('small_z', (risks[small_steps] - small_mean) / small_se, '.0f')} SE below it")
    assert small_steps == 2 and risks[small_steps] - small_mean > 2 * small_se

    rows, fit_data = poly_errors(np.random.default_rng(POLY_SEED))
    best_degree = min(rows, key=lambda r: r[2])[0]
    print(f"[5] polynomials fitted to N = {glue('poly_n', POLY_N)} nearly evenly spaced points of "
          f"sin(pi x) + noise (sd {glue('noise_sd', NOISE_SD)}, seed "
          f"{glue('poly_seed', POLY_SEED)}); mean squared errors, population = "
          f"{glue('poly_population', len(POLY_POPULATION))} grid points")
    step = POLY_POPULATION[1] - POLY_POPULATION[0]
    print(f"    population: x uniform on the {glue('grid_points', len(POLY_POPULATION))} points "
          f"from {glue('grid_first', POLY_POPULATION[0], 'g')} to "
          f"{glue('grid_last', POLY_POPULATION[-1], 'g')} in steps of "
          f"{glue('grid_step', step, '.2f')}, y = sin(pi x) + noise of sd "
          f"{glue('grid_noise_sd', NOISE_SD)}; the {glue('grid_train_points', POLY_N)} training "
          "inputs are grid points")
    assert abs(step - 0.01) < 1e-12 and np.isin(fit_data["x"], POLY_POPULATION).all()
    for degree, train, population in rows:
        # a training error below 1e-6 is printed as that bound: 'below 1e-6' is 10 wide
        train_text = (glue(f"poly_train_{degree}", train, ">10.4f") if train >= 1e-6
                      else f"below {glue(f'poly_train_{degree}', '1e-6')}")
        population_text = glue(f"poly_population_{degree}", population,
                               ".4f" if population < 1 else ".4g")
        print(f"    degree {glue(f'poly_degree_{degree}', degree, '>2')} "
              f"({glue(f'poly_parameters_{degree}', degree + 1, '>2')} parameters): "
              f"train {train_text}, population {population_text}")
    print(f"    lowest population error at degree {glue('best_degree', best_degree)}; noise floor "
          f"{glue('noise_floor', NOISE_SD ** 2, '.2f')}")
    top = fit_data["fits"][MAX_DEGREE]
    bias2 = (np.sin(np.pi * POLY_POPULATION) - top(POLY_POPULATION)) ** 2
    grid, lo, hi = POLY_POPULATION, fit_data["x"].min(), fit_data["x"].max()
    inside = (grid >= lo) & (grid <= hi)
    share = float(bias2[~inside].sum() / bias2.sum())
    inside_error = NOISE_SD**2 + float(bias2[inside].mean())
    print(f"    degree {glue('top_degree', MAX_DEGREE)}: "
          f"{glue('top_outside_share', 100 * share, '.0f')}% of its squared error beyond the "
          f"noise lies on the {glue('top_outside_points', int((~inside).sum()))} grid points "
          f"outside the training inputs' range ({glue('train_x_min', fit_data['x'].min(), 'g')} "
          f"to {glue('train_x_max', fit_data['x'].max(), 'g')}); on the "
          f"{glue('top_inside_points', int(inside.sum()))} inside it, its population error is "
          f"{glue('top_inside_error', inside_error, '.2f')}")
    assert share > 0.5 and inside_error > 10 * rows[best_degree][2]
    trains = [r[1] for r in rows]
    assert all(a >= c - 1e-9 for a, c in itertools.pairwise(trains))  # nested models
    assert trains[-1] < 1e-6 and rows[-1][2] > 10 * rows[best_degree][2]
    assert 2 <= best_degree <= 8

    luck, fitting, excess = luck_and_fitting()
    theory = 2 / (2 * N_TRAIN * math.log(2))
    se_luck = float(luck.std(ddof=1) / math.sqrt(REPEATS))
    se_fit = float(fitting.std(ddof=1) / math.sqrt(REPEATS))
    se_excess = float(excess.std(ddof=1) / math.sqrt(REPEATS))
    gaps = luck - fitting + excess  # population risk minus training loss of the fitted model
    se_gap = float(gaps.std(ddof=1) / math.sqrt(REPEATS))
    print(f"[6] {glue('repeats', REPEATS, ',')} fresh samples of N = "
          f"{glue('repeats_n', N_TRAIN)} points (seeds {glue('repeats_seed_first', SEED_REPEATS)}"
          f" to {glue('repeats_seed_last', SEED_REPEATS + REPEATS - 1)}), mean +- standard "
          "error, bits")
    print(f"    luck, population risk of the true (a, b) minus their training loss: "
          f"{glue('mean_luck', luck.mean(), '+.4f')} +- {glue('mean_luck_se', se_luck, '.4f')} "
          f"(zero within 2 standard errors)")
    print(f"    fitting, how far the minimum of the training loss lies below the loss at the "
          f"true (a, b): {glue('mean_fitting', -fitting.mean(), '.4f')} +- "
          f"{glue('mean_fitting_se', se_fit, '.4f')}")
    print(f"    theory for D = {glue('theory_d', 2)} parameters, D / (2 N ln 2): "
          f"{glue('theory', theory, '.4f')} bits (within 2 standard errors)")
    print(f"    excess, population risk of the fitted (a, b) minus that of the true (a, b): "
          f"{glue('mean_excess', excess.mean(), '.4f')} +- "
          f"{glue('mean_excess_se', se_excess, '.4f')} bits "
          f"(above zero by more than 2 standard errors)")
    beyond = excess + fitting  # excess minus the fitting gain, paired per sample
    se_beyond = float(beyond.std(ddof=1) / math.sqrt(REPEATS))
    print(f"    excess minus fitting, paired per sample: "
          f"{glue('mean_beyond', beyond.mean(), '+.4f')} +- "
          f"{glue('mean_beyond_se', se_beyond, '.4f')} "
          f"(the excess is the larger, by more than 2 standard errors)")
    print(f"    the fitted model's gap, population risk minus training loss: "
          f"{glue('mean_gap', gaps.mean(), '.4f')} +- {glue('mean_gap_se', se_gap, '.4f')}; "
          f"D / (N ln 2) = {glue('gap_theory', 2 * theory, '.4f')} (within 2 standard errors)")
    parts = [("luck", luck.mean()), ("fitting", -fitting.mean()), ("excess", excess.mean())]
    print(f"    means: gap = {sum_text(gaps.mean(), parts, 'means')}")
    # the luck's mean is exactly zero (a fixed model's average loss is unbiased); its noise
    # widens the gap's SE, so test the two other parts without it
    no_luck = excess - fitting  # fitting (training loss at the true (a, b) minus the minimum)
    se_no_luck = float(no_luck.std(ddof=1) / math.sqrt(REPEATS))  # plus excess, paired
    z_no_luck = (no_luck.mean() - 2 * theory) / se_no_luck
    z_excess = (excess.mean() - theory) / se_excess
    print(f"    fitting plus excess (the gap without the luck, whose expectation is zero): "
          f"{glue('no_luck', no_luck.mean(), '.4f')} +- "
          f"{glue('no_luck_se', se_no_luck, '.4f')}, {glue('no_luck_z', z_no_luck, '.1f')} SE "
          f"above D / (N ln 2) = {glue('no_luck_theory', 2 * theory, '.4f')}")
    print(f"    excess {glue('excess_test', excess.mean(), '.4f')} +- "
          f"{glue('excess_test_se', se_excess, '.4f')} bits: "
          f"{glue('excess_z', z_excess, '.1f')} SE above its limit D / (2 N ln 2) = "
          f"{glue('excess_limit', theory, '.4f')}; at N = {glue('excess_n', N_TRAIN)} both lie "
          "above the asymptotic formulas by more than 2 standard errors")
    assert z_no_luck > 2 and z_excess > 2
    assert abs(gaps.mean() - (luck.mean() - fitting.mean() + excess.mean())) < 1e-12
    assert abs(luck.mean()) < 2 * se_luck
    assert abs(fitting.mean() + theory) < 2 * se_fit
    assert (fitting <= 0).all()
    assert excess.mean() > 2 * se_excess and (excess >= 0).all()
    assert abs(gaps.mean() - 2 * theory) < 2 * se_gap
    assert beyond.mean() > 2 * se_beyond

    draw_figure(x, y, gd, sgd, rows, risks[-1])
    del fit_data
    print("All assertions passed.")


if __name__ == "__main__":
    main()
