"""The fixed text a report writes, in each language the question can be written in.

The languages are those :func:`~deep_research.text.language.language_of` detects. report.md
(headings, the offline engine's notice, the limitations, the confidence line, the marks on
claims and their notes, the verification line) and report.html (its headings, the verdicts'
names, the tally, the chart and the claim panel) take every fixed word from :data:`LABELS`.
:func:`label` falls back to English for a language or a key without a text.
"""

from __future__ import annotations

from typing import Literal

__all__ = ["LABELS", "Label", "label"]

Label = Literal[
    # report.md
    "references",
    "disagree",
    "notice",
    "verified",
    "unchecked",
    "verification_off",
    "broad",
    "limitations",
    "no_limits",
    "confidence",
    "high",
    "medium",
    "low",
    "basis_checked",
    "basis_unchecked",
    "basis_sources",
    "basis_conflicts",
    "basis_uncovered",
    "basis_parts",
    "not_covered",
    "not_answered",
    "partly",
    "one_source",
    "weak_support",
    "sources_disagree",
    "available_from",
    "marked_one",
    "marked_many",
    "mark_partial",
    "mark_unsupported",
    "mark_contradicted",
    "mark_note",
    "fallbacks",
    # report.html
    "summary",
    "confidence_heading",
    "limits_one",
    "limits_many",
    "verification",
    "tally",
    "chart",
    "verdict_supported",
    "verdict_partial",
    "verdict_unsupported",
    "verdict_contradicted",
    "verdict_analysis",
    "verdict_unsourced",
    "verdict_unchecked",
    "panel_hint",
    "claim_confidence",
    "no_evidence",
    "found_by_verifier",
    "close",
]

LABELS: dict[str, dict[Label, str]] = {
    "en": {
        "references": "References",
        "disagree": "Where sources disagree",
        "notice": (
            "Written by the offline extractive engine: every sentence of its sections is quoted "
            "from a source and selected by relevance and diversity; no language model wrote or "
            "paraphrased it. The Limitations section and the confidence line state what the "
            "run found."
        ),
        "verified": (
            "Verification: {supported} of {total} checked claims fully supported, {removed} "
            "removed or corrected in revision; details in report.json and report.html."
        ),
        "unchecked": (
            "Verification: no claim could be checked against the evidence; details in "
            "report.json and report.html."
        ),
        "verification_off": (
            "Verification: off for this run (the verify setting); no claim was checked "
            "against the evidence."
        ),
        "broad": (
            "“{question}” is broad. Which aspect should the research cover (for example "
            "costs, history, technology, risks, or a comparison)?"
        ),
        "limitations": "Limitations",
        "no_limits": (
            "Every part of the question is answered by a supported claim, and no two sources "
            "were found to disagree on a figure or a fact."
        ),
        "one_source": (
            "One source: every claim of the report comes from one site or document, and no "
            "independent source confirms it."
        ),
        "weak_support": (
            "Weak support: only {supported} of {total} checked claims are fully supported by "
            "their evidence."
        ),
        "confidence": "Confidence",
        "high": "high",
        "medium": "medium",
        "low": "low",
        "basis_checked": "{supported} of {total} checked claims fully supported",
        "basis_unchecked": "no claim could be checked",
        "basis_sources": "{cited} sources cited, {independent} of them independent "
        "(distinct sites or documents)",
        "basis_conflicts": "{conflicts} conflicts between sources",
        "basis_uncovered": "{uncovered} parts of the question not covered",
        "basis_parts": "{total} parts of the question: {answered} answered, {partly} partly "
        "answered, {unanswered} not answered",
        "not_covered": "Not covered: {title}. The sources read do not answer it well enough.",
        "not_answered": "Not answered: {part}. No supported claim of the report answers it.",
        "partly": (
            "Partly answered: {part}. The report's supported claims bear on it but do not "
            "state what it asks for."
        ),
        "sources_disagree": "Sources disagree: “{a}” [{key_a}] versus “{b}” [{key_b}].",
        "available_from": "Available from: {location}",
        "marked_one": (
            "1 claim is marked in the text because the evidence does not fully support it; "
            "the notes give the reason."
        ),
        "marked_many": (
            "{count} claims are marked in the text because the evidence does not fully support "
            "them; the notes give the reason."
        ),
        "mark_partial": "partly supported",
        "mark_unsupported": "unsupported",
        "mark_contradicted": "contradicted by its evidence",
        "mark_note": "{mark}: {reason}.",
        "fallbacks": (
            "The model gave {count} answers that could not be used, even when asked again; "
            "the offline engine's method stood in for each (report.json's metrics.fallbacks "
            "names the tasks)."
        ),
        "summary": "Summary.",
        "confidence_heading": "{name}: {level}",
        "limits_one": "1 limitation stated in the report.",
        "limits_many": "{count} limitations stated in the report.",
        "verification": "Verification",
        "tally": (
            "{total} claims checked: {supported} supported, {partial} partial, {unsupported} "
            "unsupported, {contradicted} contradicted."
        ),
        "chart": "claims by verdict",
        "verdict_supported": "Supported",
        "verdict_partial": "Partial",
        "verdict_unsupported": "Unsupported",
        "verdict_contradicted": "Contradicted",
        "verdict_analysis": "Analysis",
        "verdict_unsourced": "Unsourced",
        "verdict_unchecked": "Unchecked",
        "panel_hint": "Click a highlighted claim to see its evidence.",
        "claim_confidence": " (confidence {value})",
        "no_evidence": "No evidence is cited.",
        "found_by_verifier": " (found by the verifier)",
        "close": "Close",
    },
    "fr": {
        "references": "Références",
        "disagree": "Points de désaccord entre les sources",
        "notice": (
            "Rédigé par le moteur extractif hors ligne : chaque phrase de ses sections est "
            "citée d'une source et choisie pour sa pertinence et sa diversité ; aucun modèle de "
            "langage ne l'a écrite ni reformulée. La section Limites et la ligne de confiance "
            "disent ce que la recherche a constaté."
        ),
        "verified": (
            "Vérification : {supported} affirmations vérifiées sur {total} entièrement "
            "étayées, {removed} retirées ou corrigées ; détails dans report.json et report.html."
        ),
        "unchecked": (
            "Vérification : aucune affirmation n'a pu être confrontée aux sources ; détails "
            "dans report.json et report.html."
        ),
        "broad": (
            "« {question} » est large. Quel aspect la recherche doit-elle couvrir (par exemple "
            "les coûts, l'historique, la technique, les risques ou une comparaison) ?"
        ),
        "limitations": "Limites",
        "no_limits": (
            "Chaque partie de la question a une réponse étayée, et aucune source ne "
            "contredit une autre sur un chiffre ou un fait."
        ),
        "one_source": (
            "Une seule source : toutes les affirmations du rapport viennent d'un seul site ou "
            "document, et aucune source indépendante ne les confirme."
        ),
        "weak_support": (
            "Appui faible : seules {supported} des {total} affirmations vérifiées sont "
            "entièrement étayées par leurs preuves."
        ),
        "confidence": "Confiance",
        "high": "élevée",
        "medium": "moyenne",
        "low": "faible",
        "basis_checked": "affirmations vérifiées entièrement étayées : {supported} sur {total}",
        "basis_unchecked": "aucune affirmation n'a pu être vérifiée",
        "basis_sources": "sources citées : {cited}, dont indépendantes : {independent} "
        "(sites ou documents distincts)",
        "basis_conflicts": "désaccords entre sources : {conflicts}",
        "basis_uncovered": "parties de la question non couvertes : {uncovered}",
        "basis_parts": "parties de la question : {total} (avec réponse : {answered}, réponse "
        "partielle : {partly}, sans réponse : {unanswered})",
        "not_covered": "Non couvert : {title}. Les sources lues n'y répondent pas suffisamment.",
        "not_answered": "Sans réponse : {part}. Aucune affirmation étayée du rapport n'y répond.",
        "partly": (
            "Réponse partielle : {part}. Les affirmations étayées du rapport s'y rapportent "
            "sans dire ce qui est demandé."
        ),
        "verification_off": (
            "Vérification : désactivée pour cette exécution (le réglage verify) ; aucune "
            "affirmation n'a été confrontée aux preuves."
        ),
        "sources_disagree": "Les sources divergent : « {a} » [{key_a}] contre « {b} » [{key_b}].",
        "available_from": "Disponible sur : {location}",
        "marked_one": (
            "1 affirmation est signalée dans le texte car les sources ne l'étayent pas "
            "entièrement ; la note en donne la raison."
        ),
        "marked_many": (
            "{count} affirmations sont signalées dans le texte car les sources ne les étayent "
            "pas entièrement ; les notes en donnent la raison."
        ),
        "mark_partial": "partiellement étayée",
        "mark_unsupported": "non étayée",
        "mark_contradicted": "contredite par ses sources",
        "mark_note": "{mark} : {reason}.",
        "fallbacks": (
            "Le modèle a donné {count} réponses inutilisables, même après une nouvelle demande ; "
            "la méthode du moteur hors ligne a remplacé chacune (metrics.fallbacks dans "
            "report.json nomme les tâches)."
        ),
        "summary": "Résumé.",
        "confidence_heading": "{name} : {level}",
        "limits_one": "1 limite signalée dans le rapport.",
        "limits_many": "Limites signalées dans le rapport : {count}.",
        "verification": "Vérification",
        "tally": (
            "Affirmations vérifiées : {total} ; étayées : {supported}, en partie : {partial}, "
            "non étayées : {unsupported}, contredites : {contradicted}."
        ),
        "chart": "affirmations par verdict",
        "verdict_supported": "Étayée",
        "verdict_partial": "En partie",
        "verdict_unsupported": "Non étayée",
        "verdict_contradicted": "Contredite",
        "verdict_analysis": "Analyse",
        "verdict_unsourced": "Sans source",
        "verdict_unchecked": "Non vérifiée",
        "panel_hint": "Cliquez sur une affirmation surlignée pour voir ses sources.",
        "claim_confidence": " (confiance {value})",
        "no_evidence": "Aucune source n'est citée.",
        "found_by_verifier": " (trouvée par le vérificateur)",
        "close": "Fermer",
    },
    "es": {
        "references": "Referencias",
        "disagree": "Dónde discrepan las fuentes",
        "notice": (
            "Redactado por el motor extractivo sin conexión: cada frase de sus secciones está "
            "citada de una fuente y elegida por su pertinencia y diversidad; ningún modelo de "
            "lenguaje la escribió ni la parafraseó. La sección Limitaciones y la línea de "
            "confianza indican lo que halló la investigación."
        ),
        "verified": (
            "Verificación: {supported} de {total} afirmaciones comprobadas plenamente "
            "respaldadas, {removed} eliminadas o corregidas en la revisión; detalles en "
            "report.json y report.html."
        ),
        "unchecked": (
            "Verificación: ninguna afirmación pudo contrastarse con las fuentes; detalles en "
            "report.json y report.html."
        ),
        "broad": (
            "«{question}» es una pregunta amplia. ¿Qué aspecto debe cubrir la investigación "
            "(por ejemplo, costes, historia, tecnología, riesgos o una comparación)?"
        ),
        "limitations": "Limitaciones",
        "no_limits": (
            "Cada parte de la pregunta tiene una respuesta respaldada, y no se "
            "hallaron fuentes que discrepen en una cifra o un hecho."
        ),
        "one_source": (
            "Una sola fuente: todas las afirmaciones del informe vienen de un solo sitio o "
            "documento, y ninguna fuente independiente las confirma."
        ),
        "weak_support": (
            "Respaldo débil: solo {supported} de {total} afirmaciones comprobadas están "
            "plenamente respaldadas por sus pruebas."
        ),
        "confidence": "Confianza",
        "high": "alta",
        "medium": "media",
        "low": "baja",
        "basis_checked": "afirmaciones comprobadas plenamente respaldadas: {supported} de {total}",
        "basis_unchecked": "ninguna afirmación pudo comprobarse",
        "basis_sources": "fuentes citadas: {cited}, independientes: {independent} "
        "(sitios o documentos distintos)",
        "basis_conflicts": "discrepancias entre fuentes: {conflicts}",
        "basis_uncovered": "partes de la pregunta sin cubrir: {uncovered}",
        "basis_parts": "partes de la pregunta: {total} (con respuesta: {answered}, respuesta "
        "parcial: {partly}, sin respuesta: {unanswered})",
        "not_covered": "Sin cubrir: {title}. Las fuentes leídas no lo responden lo suficiente.",
        "not_answered": (
            "Sin respuesta: {part}. Ninguna afirmación respaldada del informe lo responde."
        ),
        "partly": (
            "Respuesta parcial: {part}. Las afirmaciones respaldadas del informe tratan el tema "
            "pero no dicen lo que se pregunta."
        ),
        "verification_off": (
            "Verificación: desactivada en esta ejecución (el ajuste verify); ninguna "
            "afirmación se contrastó con la evidencia."
        ),
        "sources_disagree": "Las fuentes discrepan: «{a}» [{key_a}] frente a «{b}» [{key_b}].",
        "available_from": "Disponible en: {location}",
        "marked_one": (
            "1 afirmación está marcada en el texto porque las fuentes no la respaldan por "
            "completo; la nota da el motivo."
        ),
        "marked_many": (
            "{count} afirmaciones están marcadas en el texto porque las fuentes no las "
            "respaldan por completo; las notas dan el motivo."
        ),
        "mark_partial": "parcialmente respaldada",
        "mark_unsupported": "sin respaldo",
        "mark_contradicted": "contradicha por sus fuentes",
        "mark_note": "{mark}: {reason}.",
        "fallbacks": (
            "El modelo dio {count} respuestas que no se pudieron usar, ni siquiera al volver "
            "a preguntar; el método del motor sin conexión sustituyó a cada una (metrics.fallbacks "
            "en report.json nombra las tareas)."
        ),
        "summary": "Resumen.",
        "confidence_heading": "{name}: {level}",
        "limits_one": "1 limitación indicada en el informe.",
        "limits_many": "Limitaciones indicadas en el informe: {count}.",
        "verification": "Verificación",
        "tally": (
            "Afirmaciones comprobadas: {total}; respaldadas: {supported}, parciales: {partial}, "
            "sin respaldo: {unsupported}, contradichas: {contradicted}."
        ),
        "chart": "afirmaciones por veredicto",
        "verdict_supported": "Respaldada",
        "verdict_partial": "Parcial",
        "verdict_unsupported": "Sin respaldo",
        "verdict_contradicted": "Contradicha",
        "verdict_analysis": "Análisis",
        "verdict_unsourced": "Sin fuente",
        "verdict_unchecked": "Sin comprobar",
        "panel_hint": "Haga clic en una afirmación resaltada para ver sus fuentes.",
        "claim_confidence": " (confianza {value})",
        "no_evidence": "No se cita ninguna fuente.",
        "found_by_verifier": " (hallada por el verificador)",
        "close": "Cerrar",
    },
    "de": {
        "references": "Quellen",
        "disagree": "Wo die Quellen voneinander abweichen",
        "notice": (
            "Vom Offline-Extraktionsmodul verfasst: Jeder Satz seiner Abschnitte ist aus einer "
            "Quelle zitiert und nach Relevanz und Vielfalt ausgewählt; kein Sprachmodell hat "
            "ihn geschrieben oder umformuliert. Der Abschnitt Einschränkungen und die Zeile "
            "zur Verlässlichkeit geben an, was die Recherche ergeben hat."
        ),
        "verified": (
            "Prüfung: {supported} von {total} geprüften Aussagen vollständig belegt, {removed} "
            "bei der Überarbeitung entfernt oder korrigiert; Einzelheiten in report.json und "
            "report.html."
        ),
        "unchecked": (
            "Prüfung: Keine Aussage konnte an den Belegen geprüft werden; Einzelheiten in "
            "report.json und report.html."
        ),
        "broad": (
            "„{question}“ ist weit gefasst. Welchen Aspekt soll die Recherche abdecken (zum "
            "Beispiel Kosten, Geschichte, Technik, Risiken oder einen Vergleich)?"
        ),
        "limitations": "Einschränkungen",
        "no_limits": (
            "Jeder Teil der Frage hat eine belegte Antwort, und keine zwei Quellen "
            "widersprechen sich bei einer Zahl oder einer Tatsache."
        ),
        "one_source": (
            "Eine einzige Quelle: alle Aussagen des Berichts stammen von einer Website oder "
            "einem Dokument, und keine unabhängige Quelle bestätigt sie."
        ),
        "weak_support": (
            "Schwache Belege: nur {supported} von {total} geprüften Aussagen sind durch ihre "
            "Belege vollständig gestützt."
        ),
        "confidence": "Verlässlichkeit",
        "high": "hoch",
        "medium": "mittel",
        "low": "niedrig",
        "basis_checked": "vollständig belegte geprüfte Aussagen: {supported} von {total}",
        "basis_unchecked": "keine Aussage konnte geprüft werden",
        "basis_sources": "zitierte Quellen: {cited}, davon unabhängig: {independent} "
        "(verschiedene Websites oder Dokumente)",
        "basis_conflicts": "Widersprüche zwischen Quellen: {conflicts}",
        "basis_uncovered": "nicht abgedeckte Teile der Frage: {uncovered}",
        "basis_parts": "Teile der Frage: {total} (beantwortet: {answered}, teilweise beantwortet: "
        "{partly}, nicht beantwortet: {unanswered})",
        "not_covered": (
            "Nicht abgedeckt: {title}. Die gelesenen Quellen beantworten es nicht ausreichend."
        ),
        "not_answered": (
            "Nicht beantwortet: {part}. Keine belegte Aussage des Berichts beantwortet es."
        ),
        "partly": (
            "Teilweise beantwortet: {part}. Die belegten Aussagen des Berichts betreffen es, "
            "sagen aber nicht, wonach gefragt ist."
        ),
        "verification_off": (
            "Prüfung: für diesen Lauf ausgeschaltet (die Einstellung verify); keine Aussage "
            "wurde mit den Belegen abgeglichen."
        ),
        "sources_disagree": (
            "Die Quellen widersprechen sich: „{a}“ [{key_a}] gegenüber „{b}“ [{key_b}]."
        ),
        "available_from": "Verfügbar unter: {location}",
        "marked_one": (
            "1 Aussage ist im Text markiert, weil die Belege sie nicht vollständig stützen; "
            "die Anmerkung nennt den Grund."
        ),
        "marked_many": (
            "{count} Aussagen sind im Text markiert, weil die Belege sie nicht vollständig "
            "stützen; die Anmerkungen nennen den Grund."
        ),
        "mark_partial": "teilweise belegt",
        "mark_unsupported": "nicht belegt",
        "mark_contradicted": "von den Belegen widerlegt",
        "mark_note": "{mark}: {reason}.",
        "fallbacks": (
            "Das Modell gab {count} Antworten, die auch nach erneuter Anfrage nicht verwendbar "
            "waren; die Methode der Offline-Engine trat jeweils an ihre Stelle (metrics.fallbacks "
            "in report.json nennt die Aufgaben)."
        ),
        "summary": "Zusammenfassung.",
        "confidence_heading": "{name}: {level}",
        "limits_one": "1 Einschränkung im Bericht genannt.",
        "limits_many": "Im Bericht genannte Einschränkungen: {count}.",
        "verification": "Prüfung",
        "tally": (
            "Geprüfte Aussagen: {total}; belegt: {supported}, teilweise: {partial}, "
            "nicht belegt: {unsupported}, widerlegt: {contradicted}."
        ),
        "chart": "Aussagen nach Prüfergebnis",
        "verdict_supported": "Belegt",
        "verdict_partial": "Teilweise",
        "verdict_unsupported": "Nicht belegt",
        "verdict_contradicted": "Widerlegt",
        "verdict_analysis": "Analyse",
        "verdict_unsourced": "Ohne Quelle",
        "verdict_unchecked": "Ungeprüft",
        "panel_hint": "Klicken Sie auf eine markierte Aussage, um ihre Belege zu sehen.",
        "claim_confidence": " (Konfidenz {value})",
        "no_evidence": "Es ist kein Beleg zitiert.",
        "found_by_verifier": " (vom Prüfer gefunden)",
        "close": "Schließen",
    },
    "zh": {
        "references": "参考文献",
        "disagree": "来源之间的分歧",
        "notice": (
            "本报告由离线抽取引擎生成：各章节的每句话均摘自来源，按相关性和多样性选取，"
            "未经任何语言模型撰写或改写。局限与可信度部分说明本次研究的发现。"
        ),
        "verified": (
            "核查：在 {total} 条经核查的陈述中，{supported} 条得到证据完全支持，"
            "{removed} 条在修订中被删除或更正；详情见 report.json 和 report.html。"
        ),
        "unchecked": "核查：没有可对照证据核查的陈述；详情见 report.json 和 report.html。",
        "broad": "“{question}”范围较广。研究应侧重哪个方面（例如成本、历史、技术、风险或比较）？",
        "limitations": "局限",
        "no_limits": "问题的每一部分都有得到支持的陈述作答，也没有发现来源在数字或事实上相互矛盾。",
        "one_source": "单一来源：报告的所有陈述都来自同一个网站或文档，没有独立的来源加以印证。",
        "weak_support": (
            "支持不足：{total} 条经核查的陈述中只有 {supported} 条得到证据的完全支持。"
        ),
        "confidence": "可信度",
        "high": "高",
        "medium": "中",
        "low": "低",
        "basis_checked": "{total} 条经核查的陈述中 {supported} 条得到完全支持",
        "basis_unchecked": "没有可核查的陈述",
        "basis_sources": "引用 {cited} 个来源，其中 {independent} 个相互独立（不同网站或文档）",
        "basis_conflicts": "来源之间有 {conflicts} 处分歧",
        "basis_uncovered": "问题中有 {uncovered} 个部分未被覆盖",
        "basis_parts": (
            "问题共 {total} 个部分：已回答 {answered} 个，部分回答 {partly} 个，"
            "未回答 {unanswered} 个"
        ),
        "not_covered": "未覆盖：{title}。所读来源对此回答得不够充分。",
        "not_answered": "未回答：{part}。报告中没有得到支持的陈述回答这一点。",
        "partly": "部分回答：{part}。报告中得到支持的陈述与此相关，但没有给出所问的内容。",
        "verification_off": "核查：本次运行已关闭（verify 设置）；没有陈述经过证据核对。",
        "sources_disagree": "来源存在分歧：“{a}”[{key_a}] 与 “{b}”[{key_b}]。",
        "available_from": "获取地址：{location}",
        "marked_one": "文中标记了 1 条证据未能完全支持的陈述，脚注说明了原因。",
        "marked_many": "文中标记了 {count} 条证据未能完全支持的陈述，脚注说明了原因。",
        "mark_partial": "部分得到支持",
        "mark_unsupported": "未得到支持",
        "mark_contradicted": "与其证据相矛盾",
        "mark_note": "{mark}：{reason}。",
        "fallbacks": (
            "模型有 {count} 个回答即使重新询问后仍无法使用；"
            "每一个都由离线引擎的方法代替（report.json 中的 "
            "metrics.fallbacks 列出了相应任务）。"
        ),
        "summary": "摘要：",
        "confidence_heading": "{name}：{level}",
        "limits_one": "报告中列出了 1 项局限。",
        "limits_many": "报告中列出了 {count} 项局限。",
        "verification": "核查",
        "tally": (
            "共核查 {total} 条陈述：{supported} 条得到支持，{partial} 条部分支持，"
            "{unsupported} 条未得到支持，{contradicted} 条与证据矛盾。"
        ),
        "chart": "按核查结果统计的陈述",
        "verdict_supported": "得到支持",
        "verdict_partial": "部分支持",
        "verdict_unsupported": "未得到支持",
        "verdict_contradicted": "与证据矛盾",
        "verdict_analysis": "分析",
        "verdict_unsourced": "无来源",
        "verdict_unchecked": "未核查",
        "panel_hint": "点击高亮的陈述即可查看其证据。",
        "claim_confidence": "（置信度 {value}）",
        "no_evidence": "未引用任何证据。",
        "found_by_verifier": "（由核查器找到）",
        "close": "关闭",
    },
    "ja": {
        "references": "参考文献",
        "disagree": "情報源の間で食い違う点",
        "notice": (
            "オフラインの抽出エンジンが作成しました。各セクションの文はすべて情報源からの引用で、"
            "関連性と多様性に基づいて選ばれており、言語モデルが書いたり言い換えたりしたものでは"
            "ありません。調査で分かったことは「限界」セクションと信頼度の行に記しています。"
        ),
        "verified": (
            "検証：確認した {total} 件の主張のうち {supported} 件が完全に裏付けられ、"
            "{removed} 件が改訂で削除または修正されました。詳細は report.json と report.html "
            "にあります。"
        ),
        "unchecked": (
            "検証：証拠と照合できた主張はありません。詳細は report.json と report.html にあります。"
        ),
        "broad": (
            "「{question}」は範囲の広い質問です。調査ではどの側面を扱いますか"
            "（例：費用、歴史、技術、リスク、比較など）？"
        ),
        "limitations": "限界",
        "no_limits": (
            "質問のどの部分にも裏付けのある主張による回答があり、数値や事実について食い違う"
            "情報源は見つかりませんでした。"
        ),
        "one_source": (
            "単一の情報源：報告の主張はすべて一つのサイトまたは文書によるもので、"
            "独立した情報源による裏付けはありません。"
        ),
        "weak_support": (
            "裏付け不足：確認した {total} 件の主張のうち、証拠に完全に裏付けられているのは "
            "{supported} 件だけです。"
        ),
        "confidence": "信頼度",
        "high": "高",
        "medium": "中",
        "low": "低",
        "basis_checked": "確認した {total} 件の主張のうち {supported} 件が完全に裏付けあり",
        "basis_unchecked": "確認できた主張はありません",
        "basis_sources": "引用した情報源 {cited} 件、うち独立したもの {independent} 件"
        "（異なるサイトまたは文書）",
        "basis_conflicts": "情報源間の食い違い {conflicts} 件",
        "basis_uncovered": "扱えなかった質問の部分 {uncovered} 件",
        "basis_parts": (
            "質問の部分 {total} 件：回答 {answered} 件、一部回答 {partly} 件、"
            "未回答 {unanswered} 件"
        ),
        "not_covered": "未対応：{title}。読んだ情報源はこれに十分に答えていません。",
        "not_answered": "未回答：{part}。報告書の裏付けのある主張はこれに答えていません。",
        "partly": (
            "一部回答：{part}。報告書の裏付けのある主張は関連していますが、問われている内容を"
            "述べていません。"
        ),
        "verification_off": (
            "検証：この実行ではオフ（verify 設定）です。どの主張も証拠と照合されていません。"
        ),
        "sources_disagree": "情報源の記述が食い違っています：「{a}」[{key_a}] と「{b}」[{key_b}]。",
        "available_from": "入手先：{location}",
        "marked_one": (
            "証拠で完全には裏付けられない主張 1 件に本文中で印を付けました。"
            "理由は注に記しています。"
        ),
        "marked_many": (
            "証拠で完全には裏付けられない主張 {count} 件に本文中で印を付けました。"
            "理由は注に記しています。"
        ),
        "mark_partial": "一部のみ裏付けあり",
        "mark_unsupported": "裏付けなし",
        "mark_contradicted": "証拠と矛盾",
        "mark_note": "{mark}：{reason}。",
        "fallbacks": (
            "モデルの回答のうち {count} 件は、再度尋ねても使えませんでした。"
            "それぞれオフラインエンジンの方法で代替しました（report.json の "
            "metrics.fallbacks にタスク名があります）。"
        ),
        "summary": "要約：",
        "confidence_heading": "{name}：{level}",
        "limits_one": "レポートに記した限界：1 件。",
        "limits_many": "レポートに記した限界：{count} 件。",
        "verification": "検証",
        "tally": (
            "確認した主張 {total} 件：裏付けあり {supported} 件、一部裏付け {partial} 件、"
            "裏付けなし {unsupported} 件、矛盾 {contradicted} 件。"
        ),
        "chart": "判定別の主張数",
        "verdict_supported": "裏付けあり",
        "verdict_partial": "一部裏付け",
        "verdict_unsupported": "裏付けなし",
        "verdict_contradicted": "矛盾",
        "verdict_analysis": "分析",
        "verdict_unsourced": "出典なし",
        "verdict_unchecked": "未検証",
        "panel_hint": "ハイライトされた主張をクリックすると、その証拠が表示されます。",
        "claim_confidence": "（信頼度 {value}）",
        "no_evidence": "引用された証拠はありません。",
        "found_by_verifier": "（検証器が発見）",
        "close": "閉じる",
    },
    "ko": {
        "references": "참고 문헌",
        "disagree": "출처 간 내용이 엇갈리는 부분",
        "notice": (
            "오프라인 추출 엔진이 작성했습니다. 각 절의 모든 문장은 출처에서 인용한 것으로, "
            "관련성과 다양성을 기준으로 골랐으며 언어 모델이 쓰거나 바꾸어 쓰지 않았습니다. "
            "조사에서 확인된 내용은 '한계' 절과 신뢰도 줄에 적혀 있습니다."
        ),
        "verified": (
            "검증: 확인한 주장 {total}개 중 {supported}개가 완전히 뒷받침되었고, {removed}개는 "
            "수정 과정에서 삭제되거나 고쳐졌습니다. 자세한 내용은 report.json과 report.html에 "
            "있습니다."
        ),
        "unchecked": (
            "검증: 근거와 대조해 확인할 수 있는 주장이 없었습니다. 자세한 내용은 report.json과 "
            "report.html에 있습니다."
        ),
        "broad": (
            "“{question}”은(는) 범위가 넓은 질문입니다. 어떤 측면을 조사할까요"
            "(예: 비용, 역사, 기술, 위험, 비교)?"
        ),
        "limitations": "한계",
        "no_limits": (
            "질문의 모든 부분에 뒷받침되는 주장으로 답했으며, 수치나 사실에서 서로 어긋나는 "
            "출처는 발견되지 않았습니다."
        ),
        "one_source": (
            "단일 출처: 보고서의 모든 주장은 한 사이트나 문서에서 나왔으며, 이를 확인해 주는 "
            "독립된 출처가 없습니다."
        ),
        "weak_support": (
            "약한 뒷받침: 검증한 주장 {total}개 중 {supported}개만 증거로 완전히 뒷받침됩니다."
        ),
        "confidence": "신뢰도",
        "high": "높음",
        "medium": "보통",
        "low": "낮음",
        "basis_checked": "확인한 주장 {total}개 중 {supported}개 완전히 뒷받침됨",
        "basis_unchecked": "확인할 수 있는 주장이 없음",
        "basis_sources": "인용한 출처 {cited}개, 그중 독립 출처 {independent}개"
        "(서로 다른 사이트 또는 문서)",
        "basis_conflicts": "출처 간 불일치 {conflicts}건",
        "basis_uncovered": "다루지 못한 질문의 부분 {uncovered}개",
        "basis_parts": (
            "질문의 부분 {total}개: 답함 {answered}개, 일부 답함 {partly}개, "
            "답하지 못함 {unanswered}개"
        ),
        "not_covered": "다루지 못함: {title}. 읽은 출처가 이에 충분히 답하지 못합니다.",
        "not_answered": (
            "답하지 못함: {part}. 보고서의 뒷받침되는 주장 중 이에 답하는 것이 없습니다."
        ),
        "partly": (
            "일부 답함: {part}. 보고서의 뒷받침되는 주장이 이와 관련되지만 묻는 내용을 "
            "말하지 않습니다."
        ),
        "verification_off": (
            "검증: 이번 실행에서는 꺼져 있습니다(verify 설정). 어떤 주장도 증거와 대조되지 "
            "않았습니다."
        ),
        "sources_disagree": "출처 간 내용이 엇갈립니다: “{a}” [{key_a}] 대 “{b}” [{key_b}].",
        "available_from": "위치: {location}",
        "marked_one": (
            "근거가 완전히 뒷받침하지 않는 주장 1개를 본문에 표시했습니다. 이유는 각주에 있습니다."
        ),
        "marked_many": (
            "근거가 완전히 뒷받침하지 않는 주장 {count}개를 본문에 표시했습니다. "
            "이유는 각주에 있습니다."
        ),
        "mark_partial": "일부만 뒷받침됨",
        "mark_unsupported": "뒷받침되지 않음",
        "mark_contradicted": "근거와 모순됨",
        "mark_note": "{mark}: {reason}.",
        "fallbacks": (
            "모델의 답변 중 {count}개는 다시 요청해도 사용할 수 없었습니다. "
            "각각 오프라인 엔진의 방법으로 대체했습니다(report.json의 "
            "metrics.fallbacks에 작업이 나와 있습니다)."
        ),
        "summary": "요약:",
        "confidence_heading": "{name}: {level}",
        "limits_one": "보고서에 밝힌 한계: 1개.",
        "limits_many": "보고서에 밝힌 한계: {count}개.",
        "verification": "검증",
        "tally": (
            "확인한 주장 {total}개: 뒷받침됨 {supported}개, 일부 뒷받침 {partial}개, "
            "뒷받침 안 됨 {unsupported}개, 모순 {contradicted}개."
        ),
        "chart": "판정별 주장 수",
        "verdict_supported": "뒷받침됨",
        "verdict_partial": "일부 뒷받침",
        "verdict_unsupported": "뒷받침 안 됨",
        "verdict_contradicted": "모순",
        "verdict_analysis": "분석",
        "verdict_unsourced": "출처 없음",
        "verdict_unchecked": "미확인",
        "panel_hint": "강조 표시된 주장을 클릭하면 근거를 볼 수 있습니다.",
        "claim_confidence": " (신뢰도 {value})",
        "no_evidence": "인용된 근거가 없습니다.",
        "found_by_verifier": " (검증기가 찾음)",
        "close": "닫기",
    },
}
"""Fixed text a report writes, by language; English has every :data:`Label`."""


def label(language: str, name: Label) -> str:
    """The label ``name`` in ``language``, or in English when it has none in that language."""
    return LABELS.get(language, {}).get(name) or LABELS["en"][name]
