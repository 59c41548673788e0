<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en_US">
<context>
    <name>HardwarePage</name>
    <message numerus="yes">
        <location filename="../../desktop/pages/hardware.py" line="+672"/>
        <source>Done: %n measurement(s) saved to the probe history.</source>
        <translation>
            <numerusform>Done: %n measurement saved to the probe history.</numerusform>
            <numerusform>Done: %n measurements saved to the probe history.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>Plurals</name>
    <message numerus="yes">
        <location filename="../../desktop/plurals.py" line="+25"/>
        <source>%n published run(s)</source>
        <translation>
            <numerusform>%n published run</numerusform>
            <numerusform>%n published runs</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location line="+3"/>
        <source>%n accumulation step(s)</source>
        <translation>
            <numerusform>%n accumulation step</numerusform>
            <numerusform>%n accumulation steps</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location line="+3"/>
        <source>up to %n user(s) decoded together on each replica</source>
        <translation>
            <numerusform>up to %n user decoded together on each replica</numerusform>
            <numerusform>up to %n users decoded together on each replica</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location line="+3"/>
        <source>adding %n quote(s)</source>
        <translation>
            <numerusform>adding %n quote</numerusform>
            <numerusform>adding %n quotes</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location line="+3"/>
        <source>deleting %n quote(s)</source>
        <translation>
            <numerusform>deleting %n quote</numerusform>
            <numerusform>deleting %n quotes</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location line="+3"/>
        <source>%n GPU(s)</source>
        <translation>
            <numerusform>%n GPU</numerusform>
            <numerusform>%n GPUs</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location line="+3"/>
        <source>%Ln node(s)</source>
        <translation>
            <numerusform>%Ln node</numerusform>
            <numerusform>%Ln nodes</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location line="+5"/>
        <source>&lt;b&gt;{0} is cheapest&lt;/b&gt; over {1} years for %n {2} GPU(s) at {3} utilisation, {4} h/day: {5}.</source>
        <translation>
            <numerusform>&lt;b&gt;{0} is cheapest&lt;/b&gt; over {1} years for %n {2} GPU at {3} utilisation, {4} h/day: {5}.</numerusform>
            <numerusform>&lt;b&gt;{0} is cheapest&lt;/b&gt; over {1} years for %n {2} GPUs at {3} utilisation, {4} h/day: {5}.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location line="+5"/>
        <source>Spot: {0} reclaims per node-hour ({1}) on %n node(s) add {2} hours for work lost since the last checkpoint and restarts.</source>
        <translation>
            <numerusform>Spot: {0} reclaims per node-hour ({1}) on %n node add {2} hours for work lost since the last checkpoint and restarts.</numerusform>
            <numerusform>Spot: {0} reclaims per node-hour ({1}) on %n nodes add {2} hours for work lost since the last checkpoint and restarts.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location line="+6"/>
        <source>spot pays for jobs up to %n node(s) of {0} GPUs and stops paying above (each reclaimed node stops the whole job).</source>
        <translation>
            <numerusform>spot pays for jobs up to %n node of {0} GPUs and stops paying above (each reclaimed node stops the whole job).</numerusform>
            <numerusform>spot pays for jobs up to %n nodes of {0} GPUs and stops paying above (each reclaimed node stops the whole job).</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location line="+5"/>
        <source>Exported %n file(s) to {0}</source>
        <translation>
            <numerusform>Exported %n file to {0}</numerusform>
            <numerusform>Exported %n files to {0}</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>QuoteTab</name>
    <message numerus="yes">
        <location filename="../../desktop/pages/quote_tab.py" line="+481"/>
        <source>duplicating %n quote(s)</source>
        <translation>
            <numerusform>duplicating %n quote</numerusform>
            <numerusform>duplicating %n quotes</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>QuotesPage</name>
    <message numerus="yes">
        <location filename="../../desktop/pages/quotes.py" line="+225"/>
        <source>A job on one instance of %n GPU(s), reclaimed {0} times per instance-hour ({1}); each reclaim loses the work since the last checkpoint (one takes {2} to write, at Daly&apos;s optimal interval) and a {3} restart. Hardware failures count alike on demand, so it compares with on-demand prices as they are.</source>
        <translation>
            <numerusform>A job on one instance of %n GPU, reclaimed {0} times per instance-hour ({1}); each reclaim loses the work since the last checkpoint (one takes {2} to write, at Daly&apos;s optimal interval) and a {3} restart. Hardware failures count alike on demand, so it compares with on-demand prices as they are.</numerusform>
            <numerusform>A job on one instance of %n GPUs, reclaimed {0} times per instance-hour ({1}); each reclaim loses the work since the last checkpoint (one takes {2} to write, at Daly&apos;s optimal interval) and a {3} restart. Hardware failures count alike on demand, so it compares with on-demand prices as they are.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location line="+137"/>
        <source>importing %n quote(s)</source>
        <translation>
            <numerusform>importing %n quote</numerusform>
            <numerusform>importing %n quotes</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location line="+50"/>
        <source>Exported %n quote(s) to {0}</source>
        <translation>
            <numerusform>Exported %n quote to {0}</numerusform>
            <numerusform>Exported %n quotes to {0}</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>RentBuyPage</name>
    <message numerus="yes">
        <location filename="../../desktop/pages/rent_buy.py" line="+567"/>
        <source>median of %n spot quote(s)</source>
        <translation>
            <numerusform>median of %n spot quote</numerusform>
            <numerusform>median of %n spot quotes</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location line="+65"/>
        <source>median of %n purchase quote(s): {0}</source>
        <translation>
            <numerusform>median of %n purchase quote: {0}</numerusform>
            <numerusform>median of %n purchase quotes: {0}</numerusform>
        </translation>
    </message>
</context>
</TS>
