//! Words of particular trades and of office life that mean the same — a shop's tills and
//! takings, a school's pupils, a clinic's records, a studio's loudness, a meeting's
//! headset — kept apart from the words of computing ([`crate::synonyms`]), which reads
//! them as groups of its own. Written as those are: lowercase, as the index spells them.
//! Pure data.

/// Words of a trade that mean the same, each group on its own.
pub(crate) const TRADE_GROUPS: &[&[&str]] = &[
    &["headset", "headsets", "headphones", "earbuds", "airpods"],
    &[
        "videocall",
        "videocalls",
        "zoom",
        "jitsi",
        "webex",
        "facetime",
        "meeting",
        "meetings",
    ],
    &[
        "invoice",
        "invoices",
        "invoicing",
        "billing",
        "bill",
        "bills",
    ],
    &["revenue", "sales", "takings", "turnover"],
    &["pos", "till", "tills"],
    &["student", "students", "pupil", "pupils"],
    &[
        "stt",
        "transcription",
        "transcribe",
        "transcribed",
        "dictation",
    ],
    &[
        "loudness", "loud", "louder", "quiet", "quieter", "lufs", "loudnorm",
    ],
    &["video", "videos", "film", "filmed", "filming"],
    &["smartspeaker", "smartspeakers", "alexa", "homepod"],
    &["ehr", "emr"],
    &["cv", "cvs", "resume", "resumes"],
    &["xray", "xrays", "radiograph", "radiographs"],
    &["cryptocurrency", "cryptocurrencies", "bitcoin", "ethereum"],
    &["chromecast", "casting", "airplay"],
    &["applepay", "googlepay", "wallet", "wallets"],
    &["excise", "duty"],
    &["opac", "catalogue", "catalog"],
    &["fines", "fees", "charges"],
    &["esignature", "esign", "docusign"],
    &["lease", "leases", "tenancy", "tenancies"],
    &["mic", "mics", "microphone", "microphones"],
    &["theft", "thefts", "stolen", "steal", "stealing"],
    &["turnstile", "turnstiles", "gate", "gates"],
    &["anpr", "alpr", "lpr"],
    &["uav", "uavs", "drone", "drones"],
    &["luggage", "baggage", "bag", "bags", "suitcase", "suitcases"],
    &["rtu", "rtus", "outstation", "outstations"],
    &["abuse", "abused", "misuse", "misused"],
    &[
        "subtitle",
        "subtitles",
        "subtitled",
        "caption",
        "captions",
        "captioned",
        "captioning",
    ],
];
