// Language tags for MP4. A track's language in MP4 is an ISO 639-2/T code (three letters,
// ISO/IEC 14496-12 8.4.2.3); ffmpeg 5.1 writes nothing at all for a two-letter code (measured).
// Platforms name subtitle languages the BCP 47 way (`en`, `pt-BR`, `en-orig`, `zh-Hans`).

// ISO 639-1 to ISO 639-2/T, two letters then three, from Debian's iso-codes (iso_639-2.json).
const iso639_1to2 = "aaaar ababk aeave afafr akaka amamh anarg arara asasm avava ayaym azaze babak bebel bgbul bhbih " +
  "bibis bmbam bnben bobod brbre bsbos cacat ceche chcha cocos crcre csces cuchu cvchv cycym dadan " +
  "dedeu dvdiv dzdzo eeewe elell eneng eoepo esspa etest eueus fafas ffful fifin fjfij fofao frfra " +
  "fyfry gagle gdgla glglg gngrn guguj gvglv hahau heheb hihin hohmo hrhrv hthat huhun hyhye hzher " +
  "iaina idind ieile igibo iiiii ikipk ioido isisl itita iuiku jajpn jvjav kakat kgkon kikik kjkua " +
  "kkkaz klkal kmkhm knkan kokor krkau kskas kukur kvkom kwcor kykir lalat lbltz lglug lilim lnlin " +
  "lolao ltlit lulub lvlav mgmlg mhmah mimri mkmkd mlmal mnmon mrmar msmsa mtmlt mymya nanau nbnob " +
  "ndnde nenep ngndo nlnld nnnno nonor nrnbl nvnav nynya ococi ojoji omorm orori ososs papan pipli " +
  "plpol pspus ptpor quque rmroh rnrun roron rurus rwkin sasan scsrd sdsnd sesme sgsag sisin skslk " +
  "slslv smsmo snsna sosom sqsqi srsrp ssssw stsot susun svswe swswa tatam tetel tgtgk ththa titir " +
  "tktuk tltgl tntsn toton trtur tstso tttat twtwi tytah uguig ukukr ururd uzuzb veven vivie vovol " +
  "wawln wowol xhxho yiyid yoyor zazha zhzho zuzu";
const threeLetterOf = new Map<string, string>();
for (const pair of iso639_1to2.split(" ")) threeLetterOf.set(pair.slice(0, 2), pair.slice(2));
// Codes ISO 639-1 withdrew that platforms still send (Hebrew, Indonesian, Yiddish).
for (const [old, code] of [["iw", "heb"], ["in", "ind"], ["ji", "yid"]] as const) threeLetterOf.set(old, code);

/** The ISO 639-2/T code of a language tag's primary language, or `und` (undetermined). */
export function mp4Language(tag: string): string {
  const primary = tag.split(/[-_]/)[0]!.toLowerCase();
  if (/^[a-z]{3}$/.test(primary)) return primary;
  return threeLetterOf.get(primary) ?? "und";
}
