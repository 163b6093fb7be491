"""Which output code: the discriminant directions' assignment against random words.
``python bench/run.py output_code``

scikit-learn's digits (10 classes, 64 features scaled to [0, 1]), one stratified 2/3 : 1/3 split
(``random_state=0``), four bits (a layer of 4 step units): each bit is L1 logistic regression at
C = 1 (liblinear, ``random_state=0``) fitted to its column of the code, and a row goes to the
nearest word (``annc.training.warmstart.pool.outputcode.code_predict``).  The code of
``output_code`` (the class means on the leading discriminant directions, assigned to the cube's
vertices) against 20 random codes of distinct words (numpy seed 0; codes with a constant bit
skipped): training and test accuracy, and the non-zero weights of the four regressions."""
import sys
import warnings

import numpy as np

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[2]))
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

from annc.training.warmstart.pool.regression import logistic
from annc.training.warmstart.pool.outputcode import code_predict, output_code

warnings.filterwarnings("ignore")
X, y = load_digits(return_X_y=True)
X = X / 16.0
Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=1 / 3, random_state=0, stratify=y)
order = list(range(10))


def scored(code):
    models = [logistic(1.0).fit(Xtr, code[ytr, j]) for j in range(code.shape[1])]

    def says(X):
        return code_predict(np.column_stack([m.decision_function(X) >= 0 for m in models]).astype(int), code, order)
    return np.mean(says(Xtr) == ytr), np.mean(says(Xte) == yte), sum(int(np.count_nonzero(m.coef_)) for m in models)


rng = np.random.default_rng(0)
words = np.array([[(v >> j) & 1 for j in range(4)] for v in range(16)])
rand = []
while len(rand) < 20:
    code = words[rng.choice(16, 10, replace=False)]
    if np.all(code.min(axis=0) != code.max(axis=0)):
        rand.append(scored(code))
rand = np.array(rand)
lda = scored(output_code(Xtr, ytr, order, 4))
print(f"output_code (discriminant directions): train {100 * lda[0]:.1f}%, test {100 * lda[1]:.1f}%, "
      f"{lda[2]} non-zero weights")
print(f"20 random codes, median: train {100 * np.median(rand[:, 0]):.1f}%, test {100 * np.median(rand[:, 1]):.1f}%, "
      f"{np.median(rand[:, 2]):.0f} non-zero weights")
best = int(np.argmax(rand[:, 1]))
print(f"20 random codes, best test: train {100 * rand[best, 0]:.1f}%, test {100 * rand[best, 1]:.1f}%, "
      f"{rand[best, 2]:.0f} non-zero weights")
