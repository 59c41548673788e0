<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en_US">
<context>
    <name>HardwarePage</name>
    <message numerus="yes">
        <location filename="../../desktop/pages/hardware.py" line="+658"/>
        <source>Done: %n measurement(s) saved to the probe history.</source>
        <translation>
            <numerusform>Done: %n measurement saved to the probe history.</numerusform>
            <numerusform>Done: %n measurements saved to the probe history.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>PlanPage</name>
    <message numerus="yes">
        <location filename="../../desktop/pages/plan.py" line="+972"/>
        <source>Exported %n file(s) to {0}</source>
        <translation>
            <numerusform>Exported %n file to {0}</numerusform>
            <numerusform>Exported %n files to {0}</numerusform>
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
        <source>%Ln node(s)</source>
        <translation>
            <numerusform>%Ln node</numerusform>
            <numerusform>%Ln nodes</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>QuoteTab</name>
    <message numerus="yes">
        <location filename="../../desktop/pages/quotes.py" line="+485"/>
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
        <location line="+306"/>
        <source>importing %n quote(s)</source>
        <translation>
            <numerusform>importing %n quote</numerusform>
            <numerusform>importing %n quotes</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location line="+32"/>
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
        <location filename="../../desktop/pages/rent_buy.py" line="+569"/>
        <source>median of %n purchase quote(s): {0}</source>
        <translation>
            <numerusform>median of %n purchase quote: {0}</numerusform>
            <numerusform>median of %n purchase quotes: {0}</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location line="+125"/>
        <source>&lt;b&gt;{0} is cheapest&lt;/b&gt; over {1} years for %n {2} GPU(s) at {3} utilisation, {4} h/day: {5}.</source>
        <translation>
            <numerusform>&lt;b&gt;{0} is cheapest&lt;/b&gt; over {1} years for %n {2} GPU at {3} utilisation, {4} h/day: {5}.</numerusform>
            <numerusform>&lt;b&gt;{0} is cheapest&lt;/b&gt; over {1} years for %n {2} GPUs at {3} utilisation, {4} h/day: {5}.</numerusform>
        </translation>
    </message>
</context>
</TS>
