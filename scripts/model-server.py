"""Serve a GGUF model with llama.cpp's OpenAI-compatible HTTP server, embedded in xllamacpp.

scripts/model-server runs this in its venv (xllamacpp installed there from PyPI):

    python scripts/model-server.py --model M.gguf --template T.jinja --port PORT --threads N

It serves on 127.0.0.1:PORT under the model name "smollm2" (GET /health,
POST /v1/chat/completions with tools, streaming or not) until it gets SIGTERM or
SIGINT, then stops the server and exits 0. Decoding is greedy (temperature 0, top-k 1),
so answers repeat whatever temperature a client sends; one slot, a 4096-token context.
"""

import argparse
import signal

import xllamacpp


def main() -> None:
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("--model", required=True, help="path of the GGUF file")
    args.add_argument("--template", required=True, help="Jinja chat template file")
    args.add_argument("--port", required=True, type=int)
    args.add_argument("--threads", required=True, type=int)
    args = args.parse_args()

    params = xllamacpp.CommonParams()
    params.model.path = args.model
    params.model_alias = {"smollm2"}  # a set: a plain str would become one alias per letter
    params.use_jinja = True
    with open(args.template, encoding="utf-8") as template:
        params.chat_template = template.read()  # the template's text, not its path
    params.hostnames = ["127.0.0.1"]
    params.port = args.port
    params.n_ctx = 4096
    params.n_parallel = 1
    params.cpuparams.n_threads = args.threads
    params.cpuparams_batch.n_threads = args.threads
    params.sampling.temp = 0
    params.sampling.top_k = 1

    # Block the stop signals before the server starts its threads (they inherit the mask),
    # so that they reach only the sigwait below, whichever thread the kernel picks.
    stop = {signal.SIGTERM, signal.SIGINT}
    signal.pthread_sigmask(signal.SIG_BLOCK, stop)
    server = xllamacpp.Server(params)  # returns once the model is loaded and it listens
    signal.sigwait(stop)
    del server  # stops the HTTP server and waits for its loop to end


if __name__ == "__main__":
    main()
