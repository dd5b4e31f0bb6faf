# Sourced on the GPU machine (after scripts/gpu-env.sh): gather the parts of xllamacpp's CUDA
# wheel and of the embedded model (scripts/pack-device-model.sh), join each file once all
# its parts have arrived, install the wheel into /tmp/site and put the model into the cache
# the CLI reads.
#
# Each call carries one part folder (.dev/K); parts wait in /tmp, which lasts while the
# machine stays warm. A joined file is checked against the original's SHA-256 before it is
# used: the model takes the name the embedded-model loader trusts only then.
# REGRAPHT_STAGE, REGRAPHT_STAGE_CACHE and REGRAPHT_SITE move its folders (for its test).
STAGE=${REGRAPHT_STAGE:-/tmp/regrapht-stage}
SITE=${REGRAPHT_SITE:-/tmp/site}
export XDG_CACHE_HOME=${REGRAPHT_STAGE_CACHE:-/tmp/regrapht-cache}
mkdir -p "$STAGE/joined" "$XDG_CACHE_HOME/regrapht/models"
for folder in .dev/[0-9]*/; do
    [ -d "$folder" ] && cp "$folder"* "$STAGE"/
done
for manifest in "$STAGE"/*.parts; do
    [ -f "$manifest" ] || { echo "staged: the first part (with its .parts) has not arrived"; break; }
    name=$(basename "$manifest" .parts)
    read -r SHA COUNT <"$manifest"
    have=$(ls "$STAGE/$name".part.* 2>/dev/null | wc -l)
    if [ ! -f "$STAGE/joined/$name" ] && [ "$have" -eq "$COUNT" ]; then
        cat "$STAGE/$name".part.* >"$STAGE/joined/$name.tmp" &&
            echo "$SHA  $STAGE/joined/$name.tmp" | sha256sum -c --quiet - &&
            mv "$STAGE/joined/$name.tmp" "$STAGE/joined/$name" && rm -f "$STAGE/$name".part.*
        case "$name" in
        *.whl)
            python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
                --target "$SITE" "$STAGE/joined/$name" &&
                export PYTHONPATH="$SITE:${PWD}:${PWD}/server" ;;
        *.gguf) mv "$STAGE/joined/$name" "$XDG_CACHE_HOME/regrapht/models/$name" &&
            touch "$STAGE/joined/$name" ;;
        esac
    fi
    if [ -f "$STAGE/joined/$name" ]; then echo "$name ready"; else echo "$name: $have of $COUNT parts"; fi
done
