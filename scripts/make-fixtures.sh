#!/usr/bin/env bash
# Regenerate the TTS audio fixtures in audio-fixtures/ (see audio-fixtures/README.md).
#
# Requirements: bash, sox (with FLAC support), flite (voice "slt"), espeak-ng, festival's text2wave with
# the ked voice (Debian packages festival, festvox-kdlpc16k).
# Deterministic: flite is deterministic and every sox call runs with -R
# (repeatable random numbers for noise and dither), so re-running the script
# reproduces byte-identical files with the same flite/espeak-ng/sox versions
# (generated with flite 2.2, eSpeak NG 1.51, SoX 14.4.2).
#
# Layout of every 16 kHz fixture: a continuous very quiet white-noise bed
# (sox `whitenoise vol 0.001`, peak -60 dBFS, RMS about -65 dBFS) over
# the whole file; the speech starts after 0.8 s of that noise and is followed by
# 0.8 s of it. Each TTS clip is normalised to -3 dBFS peak and has flite's
# leading/trailing near-silence trimmed, so the start times printed at the end
# are the real speech onsets. Exceptions are described where they are made: the
# noisy fixtures and restart_seam.flac have other noise beds; noisy_page_up.wav
# (espeak-ng, untrimmed, noise over the utterance) and espeak_click.flac /
# espeak_scroll_down.flac / espeak_go_home.flac (espeak-ng, no noise bed at all);
# espeak_search_football_babble.flac is a clip of the shared dev set (babble), page_down_talking_room.flac
# one of the babble set (scripts/make-babble-set.py), click_hum.flac one of the room set (scripts/make-noise-set.py).
set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="$REPO_ROOT/audio-fixtures"
VOICE=slt
RATE=16000
PAD=0.8            # seconds of quiet noise before and after the speech
SESSION_GAP=2.0    # seconds of quiet noise between the commands in session.wav
PAD_NOISE="whitenoise vol 0.001"     # ~ -60 dBFS (nominal amplitude)
SEAM_LEN=70        # seconds, restart_seam.flac
SEAM_NOISE="brownnoise vol 0.0018"   # peak ~-55, RMS ~-60 dBFS; ~half the FLAC size of white
SEAM_T1=54.3       # "hey jarvis, scroll up" starts here (straddles 55 s)
SEAM_T2=62.0       # "hey jarvis, next tab" starts here

for tool in sox soxi flite espeak-ng text2wave; do
  command -v "$tool" >/dev/null 2>&1 || { echo "error: '$tool' not found" >&2; exit 1; }
done
flite -lv | grep -qw "$VOICE" || { echo "error: flite voice '$VOICE' not available" >&2; exit 1; }

TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

mkdir -p "$OUT/enc"

SOX=(sox -R -V1)                 # repeatable, errors only
FMT=(-r "$RATE" -c 1 -b 16 -e signed-integer)

TIMINGS="$TMP/timings.txt"
: >"$TIMINGS"

samples() { soxi -s "$1"; }
secs() { awk -v n="$1" -v r="$RATE" 'BEGIN { printf "%.3f", n / r }'; }
to_samples() { awk -v s="$1" -v r="$RATE" 'BEGIN { printf "%d", s * r + 0.5 }'; }

# tts NAME "TEXT" -> $TMP/NAME.wav : 16 kHz mono s16, -3 dBFS peak, trimmed (flite voice $VOICE).
tts() {
  local name=$1 text=$2
  flite -voice "$VOICE" -t "$text" -o "$TMP/$name.raw.wav"
  "${SOX[@]}" "$TMP/$name.raw.wav" "${FMT[@]}" "$TMP/$name.wav" \
    norm -3 \
    silence 1 0.01 0.1% reverse silence 1 0.01 0.1% reverse
}

# silence SECONDS OUT -> digital silence, 16 kHz mono s16
silence() {
  "${SOX[@]}" "${FMT[@]}" -n "${FMT[@]}" "$2" trim 0 "$(to_samples "$1")s"
}

# mix_with_noise SPEECH_TRACK OUT NOISE_EFFECT : noise bed of the same length
# (sample exact) mixed at unity gain under the speech track.
mix_with_noise() {
  local speech=$1 out=$2 n
  n=$(samples "$speech")
  # shellcheck disable=SC2086  # $3 is a sox effect with arguments
  "${SOX[@]}" "${FMT[@]}" -n "${FMT[@]}" "$TMP/bed.wav" synth "${n}s" $3
  "${SOX[@]}" -m -v 1 "$TMP/bed.wav" -v 1 "$speech" "${FMT[@]}" "$out"
}

# single NAME "TEXT" : PAD noise + utterance + PAD noise -> $OUT/NAME.wav (with EXT=flac: NAME.flac, the
# same samples in about half the bytes)
single() {
  local name=$1 text=$2 n ext=${EXT:-wav}
  tts "$name" "$text"
  n=$(samples "$TMP/$name.wav")
  "${SOX[@]}" "$TMP/$name.wav" "$TMP/$name.track.wav" pad "$PAD" "$PAD"
  if [ "$ext" = flac ]; then
    mix_with_noise "$TMP/$name.track.wav" "$TMP/$name.mixed.wav" "$PAD_NOISE"
    "${SOX[@]}" "$TMP/$name.mixed.wav" -C 8 "$OUT/$name.flac"
  else
    mix_with_noise "$TMP/$name.track.wav" "$OUT/$name.wav" "$PAD_NOISE"
  fi
  printf '%s\t%s\t%s\t%s\n' "$name.$ext" "$(secs "$(to_samples "$PAD")")" \
    "$(secs $(( $(to_samples "$PAD") + n )))" "$text" >>"$TIMINGS"
}

echo "== main 16 kHz fixtures"
single scroll_down         "hey jarvis, scroll down"
single search_pizza        "hey jarvis, search for pizza recipes"
EXT=flac single new_tab_jarvis_only "jarvis, new tab"
EXT=flac single no_wake "please scroll down the page and click the button"
EXT=flac single not_a_command "hey jarvis, what a lovely day it is"
EXT=flac single custom_volume "hey jarvis, set the volume to seven"
EXT=flac single click_in_sentence "hey jarvis, click on the little blue button and then we all went home for dinner"
EXT=flac single can_you_open_a_new_tab "hey jarvis, can you open a new tab"
VOICE=kal16 EXT=flac single set_timer "hey jarvis, set a timer for ten minutes"   # the grammar hears "search for"
EXT=flac single tell_me_a_joke "hey jarvis, tell me a joke"   # the grammar hears "show me gmail"
EXT=flac single asked_jarvis "i asked jarvis to open a new tab"   # the grammar fits "hey" into the end of "asked"
EXT=flac single close_current_tab "hey jarvis, close the current tab please"   # everyday variants: "the current", a polite ending
EXT=flac single look_for_flights "hey jarvis, look for cheap flights"   # "look for" opens a search too
VOICE=kal16 EXT=flac single nervous_next_tab "hey nervous, next tab"   # all of "jarvis" but its first sound
VOICE=awb EXT=flac single search_train_times "hey jarvis, search for train times to boston"   # the language model hears "sartre"
# A fan-like steady white noise under the whole file (the VAD band's loud frames ~19 dB above the quiet ones).
VOICE=kal16 PAD_NOISE="whitenoise vol 0.035" single noisy_page_down "hey jarvis, page down"
VOICE=kal16 PAD_NOISE="whitenoise vol 0.035" single noisy_search_rome "hey jarvis, search for the history of rome"   # the raw audio's query: "the history of all"

# noisy_page_up.wav: espeak-ng's voice with white noise over the utterance only (espeak-ng's own silences
# included, not trimmed), like the dev set's white15 copies, then the quiet floor around it. The wake phrase
# verifies just under the noisy threshold; the sure command after it carries it (`tentativeWakeSlack`).
echo "== noisy_page_up.wav"
espeak-ng -v en-us -w "$TMP/pgup.raw.wav" "hey jarvis, page up"
"${SOX[@]}" "$TMP/pgup.raw.wav" "${FMT[@]}" "$TMP/pgup.wav" norm -3
pgup_n=$(samples "$TMP/pgup.wav")
mix_with_noise "$TMP/pgup.wav" "$TMP/pgup.noisy.wav" "whitenoise vol 0.058"
"${SOX[@]}" "$TMP/pgup.noisy.wav" "$TMP/pgup.track.wav" pad "$PAD" "$PAD"
mix_with_noise "$TMP/pgup.track.wav" "$OUT/noisy_page_up.wav" "$PAD_NOISE"
printf '%s\t%s\t%s\t%s\n' "noisy_page_up.wav" "$(secs "$(to_samples "$PAD")")" \
  "$(secs $(( $(to_samples "$PAD") + pgup_n )))" "(espeak-ng, white noise vol 0.058 over it) hey jarvis, page up" >>"$TIMINGS"

# search_cars_then_tv.flac: a search, and another, quieter voice (awb, peak 15 dB under the talker's) that
# starts 0.15 s before the talker's last word ends, like a TV behind them.
echo "== search_cars_then_tv.flac"
tts cars "hey jarvis, search for used cars"
VOICE=awb tts tv "and then we went home"
"${SOX[@]}" "$TMP/tv.wav" "$TMP/tv.quiet.wav" gain -15
cars_n=$(samples "$TMP/cars.wav")
tv_at=$((cars_n - $(to_samples 0.15)))
"${SOX[@]}" "$TMP/tv.quiet.wav" "$TMP/tv.track.wav" pad "${tv_at}s"
"${SOX[@]}" -m -v 1 "$TMP/cars.wav" -v 1 "$TMP/tv.track.wav" "${FMT[@]}" "$TMP/cars_tv.wav"
"${SOX[@]}" "$TMP/cars_tv.wav" "$TMP/cars_tv.track.wav" pad "$PAD" "$PAD"
mix_with_noise "$TMP/cars_tv.track.wav" "$TMP/cars_tv.mixed.wav" "$PAD_NOISE"
"${SOX[@]}" "$TMP/cars_tv.mixed.wav" -C 8 "$OUT/search_cars_then_tv.flac"
tv_n=$(samples "$TMP/tv.wav")
printf '%s\t%s\t%s\t%s\n' "search_cars_then_tv.flac" "$(secs "$(to_samples "$PAD")")" \
  "$(secs $(( $(to_samples "$PAD") + cars_n )))" "hey jarvis, search for used cars" >>"$TIMINGS"
printf '%s\t%s\t%s\t%s\n' "search_cars_then_tv.flac" "$(secs $(( $(to_samples "$PAD") + tv_at )))" \
  "$(secs $(( $(to_samples "$PAD") + tv_at + tv_n )))" "(awb, -15 dB) and then we went home" >>"$TIMINGS"

# session.wav: three commands separated by SESSION_GAP s of quiet noise.
session_texts=("hey jarvis, go back" "hey jarvis, double click" "hey jarvis, open youtube")
silence "$SESSION_GAP" "$TMP/gap.wav"
parts=()
t=$(to_samples "$PAD")
gap_n=$(samples "$TMP/gap.wav")
for i in 0 1 2; do
  tts "session$i" "${session_texts[$i]}"
  n=$(samples "$TMP/session$i.wav")
  printf '%s\t%s\t%s\t%s\n' "session.wav" "$(secs "$t")" "$(secs $((t + n)))" \
    "${session_texts[$i]}" >>"$TIMINGS"
  t=$((t + n + gap_n))
  parts+=("$TMP/session$i.wav")
  if [ "$i" -lt 2 ]; then parts+=("$TMP/gap.wav"); fi
done
"${SOX[@]}" "${parts[@]}" "$TMP/session.track.wav" pad "$PAD" "$PAD"
mix_with_noise "$TMP/session.track.wav" "$OUT/session.wav" "$PAD_NOISE"

echo "== restart_seam.flac"
tts seam1 "hey jarvis, scroll up"
tts seam2 "hey jarvis, next tab"
seam_total=$(to_samples "$SEAM_LEN")
"${SOX[@]}" "${FMT[@]}" -n "${FMT[@]}" "$TMP/seam_bed.wav" synth "${seam_total}s" $SEAM_NOISE
"${SOX[@]}" "$TMP/seam1.wav" "$TMP/seam1.track.wav" pad "$(to_samples "$SEAM_T1")s"
"${SOX[@]}" "$TMP/seam2.wav" "$TMP/seam2.track.wav" pad "$(to_samples "$SEAM_T2")s"
# -m pads the shorter inputs with silence: output length == noise bed (70 s).
"${SOX[@]}" -m -v 1 "$TMP/seam_bed.wav" -v 1 "$TMP/seam1.track.wav" -v 1 "$TMP/seam2.track.wav" \
  "${FMT[@]}" -C 8 "$OUT/restart_seam.flac"
seam_texts=("hey jarvis, scroll up" "hey jarvis, next tab")
seam_starts=("$SEAM_T1" "$SEAM_T2")
for i in 0 1; do
  t0=$(to_samples "${seam_starts[$i]}")
  n=$(samples "$TMP/seam$((i + 1)).wav")
  printf '%s\t%s\t%s\t%s\n' "restart_seam.flac" "$(secs "$t0")" "$(secs $((t0 + n)))" \
    "${seam_texts[$i]}" >>"$TIMINGS"
done

echo "== espeak_click.flac, espeak_scroll_down.flac, espeak_go_home.flac, espeak_gb_scroll_left.flac, espeak_gb_search_dogs.flac, espeak_gb_go_back.flac, espeak_f3_new_tab.flac and espeak_scotland_new_tab.flac (digital silence: no noise bed)"
# espeak-ng's voice with exact zeros around and between its words, as synthetic or edited audio has; the
# recogniser puts a faint noise floor under such audio (NoiseFloor). espeak-ng is deterministic too.
# FLAC (to stay under 5 MB): "click", "scroll down", and "go home", which the recogniser hears as "google"
# and phones without the front end's frequency warp (RecognizerSettings.frequencyWarp).
for pair in "espeak_click:hey jarvis, click" "espeak_scroll_down:hey jarvis, scroll down" "espeak_go_home:hey jarvis, go home"; do
  name=${pair%%:*}; text=${pair#*:}
  espeak-ng -v en-us -w "$TMP/$name.raw.wav" "$text"
  "${SOX[@]}" "$TMP/$name.raw.wav" "${FMT[@]}" -C 8 "$OUT/$name.flac" norm -3 pad 1 0.5
done
# The same recipe in espeak-ng's British English voice, as FLAC: the live decoder needs the noise floor too
# (floorLiveAudio), and the language model hears "left" only on its next best paths.
espeak-ng -v en-gb -w "$TMP/espeak_gb_scroll_left.raw.wav" "hey jarvis, scroll left"
"${SOX[@]}" "$TMP/espeak_gb_scroll_left.raw.wav" "${FMT[@]}" -C 8 "$OUT/espeak_gb_scroll_left.flac" norm -3 pad 1 0.5
# And its "search for dogs": a non-rhotic "search" (GrammarDictionary.accentPronunciations).
espeak-ng -v en-gb -w "$TMP/espeak_gb_search_dogs.raw.wav" "hey jarvis, search for dogs"
"${SOX[@]}" "$TMP/espeak_gb_search_dogs.raw.wav" "${FMT[@]}" -C 8 "$OUT/espeak_gb_search_dogs.flac" norm -3 pad 1 0.5
# And its "go back", with the open "a" of British English (B AA K, not B AE K): heard only with the
# open-vowel words (RecognizerSettings.openVowelWords).
espeak-ng -v en-gb -w "$TMP/espeak_gb_go_back.raw.wav" "hey jarvis, go back"
"${SOX[@]}" "$TMP/espeak_gb_go_back.raw.wav" "${FMT[@]}" -C 8 "$OUT/espeak_gb_go_back.flac" norm -3 pad 1 0.5
# The same recipe in espeak-ng's higher female voice (en-us+f3, F0 about 200 Hz): heard only when the segment
# is decoded with the high-voice warp (RecognizerSettings.highVoiceWarp).
espeak-ng -v en-us+f3 -w "$TMP/espeak_f3_new_tab.raw.wav" "hey jarvis, new tab"
"${SOX[@]}" "$TMP/espeak_f3_new_tab.raw.wav" "${FMT[@]}" -C 8 "$OUT/espeak_f3_new_tab.flac" norm -3 pad 1 0.5
# And in its Scottish English voice (en-gb-scotland), whose quick "hey" lasts 70-80 ms: under the 0.1 s a lead
# must last, it counts because it sounds like "hey" after a pause (RecognizerSettings.shortLeadDuration).
espeak-ng -v en-gb-scotland -w "$TMP/espeak_scotland_new_tab.raw.wav" "hey jarvis, new tab"
"${SOX[@]}" "$TMP/espeak_scotland_new_tab.raw.wav" "${FMT[@]}" -C 8 "$OUT/espeak_scotland_new_tab.flac" norm -3 pad 1 0.5

echo "== ked_new_tab.flac (festival's ked voice, digital silence: no noise bed)"
# Its "j" fits the stop "d" as well as the affricate (UtteranceRecognizer.affricateStops).
echo "hey jarvis, new tab" >"$TMP/ked.txt"
text2wave -eval "(voice_ked_diphone)" "$TMP/ked.txt" -o "$TMP/ked.raw.wav"
"${SOX[@]}" "$TMP/ked.raw.wav" "${FMT[@]}" -C 8 "$OUT/ked_new_tab.flac" norm -3 pad 1 0.5

# copied_clip NAME CLIP MAKER : CLIP, a clip of an evaluation set MAKER builds, as $OUT/NAME.flac (the same
# samples); without CLIP the fixture is kept as it is.
copied_clip() {
  if [ -f "$2" ]; then
    "${SOX[@]}" "$2" -C 8 "$OUT/$1.flac"
  else
    echo "kept $1.flac: no $2 (run $3)" >&2
  fi
}

echo "== kal_page_down.flac (the voice set's clip, as FLAC)"
# flite kal's "hey jarvis, page down": an 8 kHz voice resampled to 16 kHz, nothing above 4 kHz under the speech,
# padded with devset.py's quiet noise, as scripts/make-voice-set.py makes it (seeded). VOICESET is the folder it
# wrote (its default /tmp/jarvis-voices).
copied_clip kal_page_down "${VOICESET:-/tmp/jarvis-voices}/command_flite_kal_04_clean.wav" scripts/make-voice-set.py

echo "== kal_hiking_trails.flac (the query set's clip, as FLAC)"
# flite kal's "hey jarvis, search for hiking trails", padded as kal_page_down.flac, as scripts/make-query-set.py
# makes it (seeded). QUERYSET is the folder it wrote (its default /tmp/jarvis-queries).
copied_clip kal_hiking_trails "${QUERYSET:-/tmp/jarvis-queries}/query_flite_kal_13_clean.wav" scripts/make-query-set.py

echo "== travis_next_tab.flac (the name set's clip, as FLAC)"
# flite slt's "hey travis, next tab", padded as devset.py pads, as scripts/make-name-set.py makes it (seeded).
# NAMESET is the folder it wrote (its default /tmp/jarvis-names).
copied_clip travis_next_tab "${NAMESET:-/tmp/jarvis-names}/name_flite_slt_travis_0.wav" scripts/make-name-set.py

echo "== espeak_search_football_babble.flac (the shared dev set's clip, as FLAC)"
# espeak-ng's "hey jarvis, search for football scores" under the dev set's babble (three TTS voices, 10 dB
# SNR), as ../shared/eval/devset.py makes it (seeded: the same samples on every run). DEVSET is the folder it
# wrote (its default /tmp/jarvis-devset).
copied_clip espeak_search_football_babble "${DEVSET:-/tmp/jarvis-devset}/command_espeak_us_21_babble10.wav" \
  ../shared/eval/devset.py

echo "== page_down_talking_room.flac (the babble set's clip, as FLAC)"
# flite slt's "hey jarvis, page down" in a room already talking: babble by voices the dev set does not use (flite
# rms, flite kal, espeak-ng en-gb) from 3 s before the speech to 1 s after it, 10 dB under it, as
# scripts/make-babble-set.py makes its cbabble10 (seeded). BABBLESET is the folder it wrote (its default
# /tmp/jarvis-babble).
copied_clip page_down_talking_room "${BABBLESET:-/tmp/jarvis-babble}/command_flite_slt_04_cbabble10.wav" \
  scripts/make-babble-set.py

echo "== click_hum.flac (the room set's clip, as FLAC)"
# flite awb's "hey jarvis, click" with mains hum (50 Hz and its 2nd, 3rd and 5th harmonics) 15 dB under the
# speech, coming on with it, as scripts/make-noise-set.py makes its hum15 (seeded). ROOMSET is the folder it
# wrote (`make eval` writes /tmp/jarvis-room).
copied_clip click_hum "${ROOMSET:-/tmp/jarvis-room}/command_flite_awb_05_hum15.wav" scripts/make-noise-set.py

echo "== encoding variants of scroll_down.wav"
SRC="$OUT/scroll_down.wav"
"${SOX[@]}" "$SRC" -r 8000  -c 1 -b 8  -e unsigned-integer "$OUT/enc/scroll_down_u8_8k.wav"
"${SOX[@]}" "$SRC" -r 48000 -c 2 -b 24 -e signed-integer   "$OUT/enc/scroll_down_s24_48k_stereo.wav"
"${SOX[@]}" "$SRC" -r 22050 -c 1 -b 32 -e floating-point   "$OUT/enc/scroll_down_f32_22k.wav"
"${SOX[@]}" "$SRC" -r 44100 -c 1 -b 32 -e signed-integer   "$OUT/enc/scroll_down_s32_44k.wav"
"${SOX[@]}" "$SRC" -r 16000 -c 1 -b 16 -C 8                 "$OUT/enc/scroll_down.flac"

echo
echo "== files"
generated=(
  scroll_down.wav search_pizza.wav new_tab_jarvis_only.flac no_wake.flac session.wav
  not_a_command.flac custom_volume.flac click_in_sentence.flac can_you_open_a_new_tab.flac set_timer.flac tell_me_a_joke.flac
  asked_jarvis.flac nervous_next_tab.flac close_current_tab.flac look_for_flights.flac search_train_times.flac noisy_page_down.wav noisy_search_rome.wav noisy_page_up.wav
  search_cars_then_tv.flac espeak_click.flac espeak_scroll_down.flac espeak_go_home.flac espeak_gb_scroll_left.flac espeak_gb_search_dogs.flac
  espeak_f3_new_tab.flac espeak_scotland_new_tab.flac ked_new_tab.flac kal_page_down.flac kal_hiking_trails.flac travis_next_tab.flac espeak_search_football_babble.flac page_down_talking_room.flac click_hum.flac
  restart_seam.flac enc/scroll_down_u8_8k.wav enc/scroll_down_s24_48k_stereo.wav enc/scroll_down_f32_22k.wav
  enc/scroll_down_s32_44k.wav enc/scroll_down.flac
)
printf '%-36s %6s %5s %3s %-26s %9s %10s\n' file rate ch bit encoding seconds bytes
for f in "${generated[@]}"; do
  p="$OUT/$f"
  printf '%-36s %6s %5s %3s %-26s %9s %10s\n' "$f" "$(soxi -r "$p")" "$(soxi -c "$p")" \
    "$(soxi -b "$p")" "$(soxi -e "$p" | tr ' ' '_')" "$(soxi -D "$p")" "$(wc -c <"$p")"
done

echo
echo "== speech timing (seconds from file start; 16 kHz sample exact)"
printf '%-24s %8s %8s  %s\n' file start end text
while IFS=$'\t' read -r f s e txt; do
  printf '%-24s %8s %8s  "%s"\n' "$f" "$s" "$e" "$txt"
done <"$TIMINGS"

echo
du -sh "$OUT"
