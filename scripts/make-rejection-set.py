#!/usr/bin/env python3
"""Build the non-command set: the wake phrase followed by speech that is not a command.

After "hey jarvis", a mature assistant must answer chatter, questions and half-commands with a rejection,
not with the nearest command. Every clip here expects a wake and no intent (kind "rejection"), in the
manifest format of ../shared/eval (score.py, `jarvis eval`). The voices, padding and noise come from
../shared/eval/devset.py (imported, not copied); the sentences are this project's own.
Usage: make-rejection-set.py [OUTDIR] [--devset-py PATH]     (default OUTDIR /tmp/jarvis-rejection)
Needs: the devset's TTS packages (espeak-ng flite festival festvox-kallpc16k sox) and numpy.
"""

# Requests jarvis has no command for, small talk, and sentences that share words with commands.
SENTENCES = [
    "what is the weather like today",
    "set a timer for ten minutes",
    "tell me a joke",
    "how tall is the eiffel tower",
    "play some relaxing music",
    "turn off the kitchen lights",
    "remind me to call my mother tomorrow",
    "what time is it in tokyo",
    "send a message to john",
    "how do you spell necessary",
    "never mind",
    "thank you very much",
    "what can you do",
    "good morning how are you",
    "add milk to the shopping list",
    "the scroll is on the table",
    "i clicked with her right away",
    "we went back home after the film",
    "open the window it is hot in here",
    "new tablets arrived at the pharmacy",
    "take a picture of the sunset",
    "read my emails",
    "call a taxi to the station",
    "translate good night into french",
    "i will search the garage later",
    "who won the game last night",
    "make the text bigger please",
    "lock the front door",
    "what is the capital of australia",
    "wake me up at seven",
]


def main():
    from tts_set import build
    build("/tmp/jarvis-rejection", 20261123,
          [(f"rejection_{{voice}}_{i:02d}", "rejection", f"hey jarvis, {sentence}", {"wake": True, "intents": []})
           for i, sentence in enumerate(SENTENCES)])


if __name__ == "__main__":
    main()
