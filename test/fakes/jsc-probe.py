# Runs yt-dlp's own Deno challenge solver the way a YouTube extraction does, on a stand-in
# player script (a real one needs YouTube). Argument: yt-dlp's --js-runtimes value.
# Prints "available: <bool>" and "answer: <the solver's answer>"; yt-dlp's log goes to stderr.
import sys

from yt_dlp import YoutubeDL
from yt_dlp.extractor.youtube.jsc._builtin.deno import DenoJCP
from yt_dlp.extractor.youtube.jsc.provider import JsChallengeRequest, JsChallengeType, NChallengeInput


class Log:
    def __getattr__(self, level):
        return lambda message, **_: print(f'{level}: {message}', file=sys.stderr)


runtime, path = sys.argv[1].split(':', 1)
ydl = YoutubeDL({'js_runtimes': {runtime: {'path': path}}, 'remote_components': ['ejs:npm'], 'quiet': True})
ie = ydl.get_info_extractor('Youtube')
# The wrapper YouTube's players have, with nothing inside to solve.
ie._load_player = lambda video_id, player_url, fatal=True: '(function(g){var window=this;var a=1;}).call(this);'
provider = DenoJCP(ie, Log(), None)
print(f'available: {provider.is_available()}')
request = JsChallengeRequest(JsChallengeType.N, NChallengeInput('https://www.youtube.com/s/player/00000000/player_ias.vflset/en_US/base.js', ['abc']), 'probe')
for response in provider.bulk_solve([request]):
    print(f'answer: {response.error or response.response}')
