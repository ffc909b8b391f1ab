"""The built-in assignment of issue 24's training problems (6-10) lists each problem with its
contract, starter and visible examples (never a hidden test), and its learner page shows them,
the encoder block's params dict included."""
from __future__ import annotations

from grader.problems import PROBLEMS
from tests.api.test_inference_assignment import lists_its_problems

TRAINING = {"combine-attention-partials": "combine_attention_partials",
            "softmax-backward": "softmax_backward",
            "attention-backward": "attention_backward",
            "layer-norm": "layer_norm",
            "transformer-encoder-block": "transformer_encoder_block"}


def test_the_training_assignment_lists_its_five_problems_with_their_contracts(client):
    lists_its_problems(client, "attention-training", TRAINING)


def test_the_examples_show_each_result_and_the_params_dict(client):
    body = client.get("/api/v1/assignments/attention-training").get_json()
    items = {item["id"]: item for item in body["items"]}
    merge = items["combine-attention-partials"]["visible_tests"][0]
    m, l, o = merge["expected_output"]  # three results: (Lq,), (Lq,), (Lq, d_v)
    assert len(m) == len(l) == len(o) == 2 and len(o[0]) == 2
    block = items["transformer-encoder-block"]["visible_tests"][0]
    params = block["inputs"]["params"]
    assert params["num_heads"] == 1 and len(params["W_1"]) == 4 and len(params["W_1"][0]) == 6


def test_the_learner_page_shows_every_training_problem(anonymous):
    page = anonymous.get("/learn/attention-training")
    assert page.status_code == 200
    text = page.get_data(as_text=True)
    for problem in TRAINING.values():
        assert f"def {PROBLEMS[problem].function}(" in text
