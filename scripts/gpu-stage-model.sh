# Sourced on the GPU machine: gather the embedded model's parts (scripts/pack-device-model.sh)
# and, once all have arrived, join them into the model cache the CLI reads.
#
# Each call carries one part folder (.dev/K); parts wait in /tmp, which lasts while the
# machine stays warm. The joined file is checked against the original's SHA-256 before it
# takes the name the embedded-model loader trusts.
STAGE=/tmp/regrapht-stage
export XDG_CACHE_HOME=/tmp/regrapht-cache
mkdir -p "$STAGE" "$XDG_CACHE_HOME/regrapht/models"
for folder in .dev/[0-9]*/; do
    [ -d "$folder" ] && cp "$folder"* "$STAGE"/
done
if [ -f "$STAGE/model.txt" ]; then
    read -r NAME SHA COUNT <"$STAGE/model.txt"
    GGUF="$XDG_CACHE_HOME/regrapht/models/$NAME"
    have=$(ls "$STAGE"/part.* 2>/dev/null | wc -l)
    if [ ! -f "$GGUF" ] && [ "$have" -eq "$COUNT" ]; then
        cat "$STAGE"/part.* >"$GGUF.tmp" &&
            echo "$SHA  $GGUF.tmp" | sha256sum -c --quiet - &&
            mv "$GGUF.tmp" "$GGUF" && rm -f "$STAGE"/part.*
    fi
    if [ -f "$GGUF" ]; then echo "embedded model ready: $GGUF"; else echo "embedded model: $have of $COUNT parts"; fi
else
    echo "embedded model: the first part (with model.txt) has not arrived"
fi
